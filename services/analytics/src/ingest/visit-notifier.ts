import { EventEmitter } from 'node:events';
import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis } from '@shortener/chassis-redis';
import { storedVisitsChannel, type LiveVisit, type StoredVisits } from '@shortener/contracts';
import type { VisitRow } from '../visits/visits.repository';

/**
 * Told of the visits stored, after their transaction commits: the live stream of the web app.
 * A notice is best effort (a subscriber that misses one still sees the visit in the stats and
 * the list); it never holds up or fails ingest.
 */
export interface VisitNotifier {
  stored(batch: StoredVisits): void;
}

/** A stored visit as the live stream shows it. */
export function liveVisit(row: VisitRow): LiveVisit {
  return {
    _id: row.id,
    createdAt: new Date(row.timestamp).toISOString(),
    userAgent: { platform: row.platform, browser: row.browser },
    ipAddress: row.ipAddress,
    country: row.country,
    device: row.device as LiveVisit['device'],
    bot: row.bot,
  };
}

/** The rows inserted by one transaction, one notice per link. */
export function noticesOf(rows: readonly VisitRow[]): StoredVisits[] {
  const byLink = new Map<string, LiveVisit[]>();
  for (const row of rows) {
    const visits = byLink.get(row.urlId) ?? [];
    visits.push(liveVisit(row));
    byLink.set(row.urlId, visits);
  }
  return [...byLink].map(([urlID, visits]) => ({ urlID, visits }));
}

/**
 * The distributed mode's notices: Redis pub/sub, a channel per link, which every gateway
 * instance with a live stream of that link subscribes to. PUBLISH to a channel nobody
 * listens on costs Redis next to nothing.
 */
export function redisVisitNotifier(url: string, logger: Logger): Adapter<VisitNotifier> {
  const redis = createRedis(url, logger);
  let failing = false;
  return {
    value: {
      stored(batch) {
        redis.publish(storedVisitsChannel(batch.urlID), JSON.stringify(batch)).then(
          () => (failing = false),
          (error: unknown) => {
            if (!failing) {
              logger.warn(
                { err: error instanceof Error ? error.message : String(error) },
                'live visit notices not sent while Redis is away',
              );
            }
            failing = true;
          },
        );
      },
    },
    // Optional: without Redis the live stream stops, ingest does not.
    checks: [],
    close: () => closeRedis(redis),
  };
}

/**
 * The embedded mode's notices: the host makes one and hands it to analytics (which tells it)
 * and to the gateway (which listens), in one process.
 */
export class InProcessLiveVisits implements VisitNotifier {
  private readonly events = new EventEmitter().setMaxListeners(0);

  stored(batch: StoredVisits): void {
    this.events.emit(batch.urlID, batch);
  }

  subscribe(urlID: string, listener: (batch: StoredVisits) => void): () => void {
    this.events.on(urlID, listener);
    return () => this.events.off(urlID, listener);
  }
}
