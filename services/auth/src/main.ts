import { startNestService } from '@shortener/chassis/nest';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config';

void startNestService({
  service: 'auth',
  loadConfig: () => loadAuthConfig(),
  module: (config) => AppModule.forRoot(config),
});
