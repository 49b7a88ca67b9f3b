import { startNestService } from '@shortener/chassis/nest';
import { AppModule } from './app.module';
import { loadLinksConfig } from './config';

void startNestService({
  service: 'links',
  loadConfig: () => loadLinksConfig(),
  module: (config) => AppModule.forRoot(config),
});
