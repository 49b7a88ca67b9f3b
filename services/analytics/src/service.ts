import { nestService } from '@shortener/chassis-nest';
import { connectAdapters } from './adapters';
import { AppModule } from './app.module';
import { loadAnalyticsConfig } from './config';

/** The analytics service: the visitors API, and ingest from its visit source. */
export const service = nestService({
  name: 'analytics',
  loadConfig: loadAnalyticsConfig,
  connectAdapters,
  module: (config, adapters) => AppModule.forRoot(config, adapters),
});
