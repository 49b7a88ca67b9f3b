import { nestService } from '@shortener/chassis-nest';
import { connectAdapters } from './adapters';
import { AppModule } from './app.module';
import { loadLinksConfig } from './config';

/** The links service: create, list, get and delete links, and the resolve call. */
export const service = nestService({
  name: 'links',
  loadConfig: loadLinksConfig,
  connectAdapters,
  module: (config, adapters) => AppModule.forRoot(config, adapters),
});
