import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadAnalyticsConfig } from './config';

/** Starts the analytics service; `hosted` when another process (the embedded mode) hosts it. */
export function startAnalytics(hosted = false): Promise<RunningService> {
  return startNestService({
    service: 'analytics',
    loadConfig: () => loadAnalyticsConfig(),
    module: (config) => AppModule.forRoot(config),
    hosted,
  });
}

if (require.main === module) void startAnalytics();
