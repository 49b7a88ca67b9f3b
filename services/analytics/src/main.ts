import { startNestService } from '@shortener/chassis/nest';
import { AppModule } from './app.module';
import { loadAnalyticsConfig } from './config';

void startNestService({
  service: 'analytics',
  loadConfig: () => loadAnalyticsConfig(),
  module: (config) => AppModule.forRoot(config),
});
