import type { Logger } from 'pino';
import { InternalClient, SHUTDOWN_TIMEOUT_MS, type OpsRoutes } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import type { RedirectConfig } from './config';
import { analyticsHandOff } from './visit-hand-off';
import type { VisitQueue } from './visit-queue';
import type { VisitSpool } from './visit-spool';

/** Left after the wait for a scrape, to close the connections and exit. */
const CLOSING_MS = 2000;

interface StopVisitsOptions {
  visits: VisitQueue;
  spool: VisitSpool | undefined;
  config: RedirectConfig;
  logger: Logger;
  ops: OpsRoutes;
  /** When the shutdown began (Date.now()). */
  since: number;
}

/**
 * A stopping instance's visits: to Kafka, then what Kafka did not take to analytics' ingest,
 * so a pod deleted in a Kafka outage loses nothing; a loss is counted and left for a scrape.
 */
export async function stopVisits({
  visits,
  spool,
  config,
  logger,
  ops,
  since,
}: StopVisitsOptions): Promise<void> {
  const queued = visits.depth;
  const left = await visits.drain(config.VISIT_DRAIN_TIMEOUT_MS);
  if (left === 0) {
    spool?.close();
    logger.info({ published: queued }, 'queued visits published');
    return;
  }
  const handOffStarted = Date.now();
  const deadline = handOffStarted + config.VISIT_HAND_OFF_TIMEOUT_MS;
  const { handedOff, lost } = await visits.handOff(
    analyticsHandOff({
      post: (batch, timeoutMs) =>
        new InternalClient(
          'analytics',
          config.ANALYTICS_URL,
          config.INTERNAL_API_SECRET,
          timeoutMs,
        ).call(internalApi.handOffVisits, { body: { visits: batch } }),
      deadline,
      logger,
    }),
  );
  // What was handed off has left the spool; what was not stays there for a next container.
  spool?.close();
  if (handedOff > 0) {
    logger.warn(
      { handedOff, ms: Date.now() - handOffStarted, drainTimeoutMs: config.VISIT_DRAIN_TIMEOUT_MS },
      `${handedOff} visits handed to analytics: Kafka did not acknowledge them in time`,
    );
  }
  if (lost === 0) return;
  logger.error(
    { lost, handedOff, spooled: spool !== undefined },
    `${lost} visits lost at shutdown: neither Kafka nor analytics took them` +
      (spool ? ' (left in the spool: a next container on it publishes them)' : ''),
  );
  if (config.OPS_PORT === undefined) return;
  const scraped = await ops.nextScrape(since + SHUTDOWN_TIMEOUT_MS - CLOSING_MS - Date.now());
  if (!scraped) logger.warn('no scrape of /metrics came before exit: the count above is unseen');
}
