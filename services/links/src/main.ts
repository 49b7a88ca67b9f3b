import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadLinksConfig } from './config';

/** Starts the links service; `hosted` when another process (the embedded mode) hosts it. */
export function startLinks(hosted = false): Promise<RunningService> {
  return startNestService({
    service: 'links',
    loadConfig: () => loadLinksConfig(),
    module: (config) => AppModule.forRoot(config),
    hosted,
  });
}

if (require.main === module) void startLinks();
