import type { Adapter, Logger } from '@shortener/chassis';
import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import type { AnalyticsConfig } from './config';
import type { VisitSource } from './ingest/visit-source';

/** What the analytics service talks to beyond PostgreSQL: where visits come from. */
export interface AnalyticsAdapters {
  visits: Adapter<VisitSource>;
}

export interface AnalyticsOptions {
  config: AnalyticsConfig;
  adapters: AnalyticsAdapters;
  logger?: Logger;
  /** Hosted in another process (the embedded mode), which handles signals and exit. */
  hosted?: boolean;
}

/** Starts the analytics service: the visitors API, and ingest from its visit source. */
export function startAnalytics({
  config,
  adapters,
  logger,
  hosted = false,
}: AnalyticsOptions): Promise<RunningService> {
  return startNestService({
    service: 'analytics',
    config,
    logger,
    adapters: { ...adapters },
    module: AppModule.forRoot(config, adapters),
    hosted,
  });
}
