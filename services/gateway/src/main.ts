import { startNestService } from '@shortener/chassis/nest';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config';

void startNestService({
  service: 'gateway',
  loadConfig: () => loadGatewayConfig(),
  module: (config) => AppModule.forRoot(config),
});
