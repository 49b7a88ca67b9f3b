import { nestService } from '@shortener/chassis-nest';
import { internalApi, VISIT_HAND_OFF_MAX_BYTES } from '@shortener/contracts';
import { connectAdapters } from './adapters';
import { AppModule } from './app.module';
import { loadAnalyticsConfig } from './config';

/** The analytics service: the visitors API, and ingest from its visit source. */
export const service = nestService({
  name: 'analytics',
  loadConfig: loadAnalyticsConfig,
  connectAdapters,
  module: (config, adapters) => AppModule.forRoot(config, adapters),
  // Its internal calls are small but one: the visits a stopping redirect instance hands off.
  bodies: {
    larger: [{ path: internalApi.handOffVisits.route, limit: VISIT_HAND_OFF_MAX_BYTES }],
  },
});
