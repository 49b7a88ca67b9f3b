import type { Adapter, Logger } from '@shortener/chassis';
import { startNestService, type RunningService } from '@shortener/chassis-nest';
import type { LinkCache } from '@shortener/link-cache';
import { AppModule } from './app.module';
import type { LinksConfig } from './config';

/** What the links service talks to beyond PostgreSQL: the link cache redirects read. */
export interface LinksAdapters {
  linkCache: Adapter<LinkCache>;
}

export interface LinksOptions {
  config: LinksConfig;
  adapters: LinksAdapters;
  logger?: Logger;
  /** Hosted in another process (the embedded mode), which handles signals and exit. */
  hosted?: boolean;
}

/** Starts the links service: create, list, get and delete links, and the resolve call. */
export function startLinks({
  config,
  adapters,
  logger,
  hosted = false,
}: LinksOptions): Promise<RunningService> {
  return startNestService({
    service: 'links',
    config,
    logger,
    adapters: { ...adapters },
    module: AppModule.forRoot(config, adapters),
    hosted,
  });
}
