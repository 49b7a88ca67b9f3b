import { EventEmitter } from 'node:events';
import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis } from '@shortener/chassis-redis';
import {
  DIRECT_REFERRER,
  storedVisitsChannel,
  type LiveVisit,
  type StoredVisits,
} from '@shortener/contracts';
import type { VisitRow } from './ingest.repository';

/**
 * Told of the visits stored, after their transaction commits: the live stream of the web app.
 * A notice is best effort (a subscriber that misses one still sees the visit in the stats and
 * the list); it never holds up or fails ingest. Notices are built only for links someone
 * listens to: most stored visits are of links nobody watches live, and building theirs cost
 * about a microsecond a visit.
 */
export interface VisitNotifier {
  /** The rows one transaction inserted, once it committed. */
  stored(rows: readonly VisitRow[]): void;
}

/** A stored visit as the live stream shows it. */
function liveVisit(row: VisitRow): LiveVisit {
  return {
    _id: row.id,
    createdAt: new Date(row.timestamp).toISOString(),
    userAgent: { platform: row.platform, browser: row.browser },
    ipAddress: row.ipAddress,
    country: row.country,
    device: row.device as LiveVisit['device'],
    bot: row.bot,
    referrer: row.referrerHost === DIRECT_REFERRER ? null : row.referrerHost,
  };
}

/** Rows grouped by link, in the order each link first appears. */
function rowsByLink(rows: readonly VisitRow[]): Map<string, VisitRow[]> {
  const byLink = new Map<string, VisitRow[]>();
  for (const row of rows) {
    const visits = byLink.get(row.urlId);
    if (visits === undefined) byLink.set(row.urlId, [row]);
    else visits.push(row);
  }
  return byLink;
}

/** One link's stored rows as its live notice. */
function noticeOf(urlID: string, rows: readonly VisitRow[]): StoredVisits {
  return { urlID, visits: rows.map(liveVisit) };
}

/** The rows inserted by one transaction, one notice per link. */
export function noticesOf(rows: readonly VisitRow[]): StoredVisits[] {
  return [...rowsByLink(rows)].map(([urlID, visits]) => noticeOf(urlID, visits));
}

/**
 * The distributed mode's notices: Redis pub/sub, a channel per link, which every gateway
 * instance with a live stream of that link subscribes to (SUBSCRIBE, never a pattern). One
 * PUBSUB NUMSUB a transaction asks which of its links have subscribers, and only those are
 * published: a stream subscribed before a visit was committed is counted (the question is
 * asked after the commit, and Redis answers it after every subscription it has already
 * taken), so it still gets the notice; only a stream subscribed in the moment between the
 * commit and the question misses one, of a visit stored before it began.
 */
export function redisVisitNotifier(url: string, logger: Logger): Adapter<VisitNotifier> {
  const redis = createRedis(url, logger);
  let failing = false;
  const failed = (error: unknown): void => {
    if (!failing) {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'live visit notices not sent while Redis is away',
      );
    }
    failing = true;
  };
  const sent = (): void => {
    failing = false;
  };
  return {
    value: {
      stored(rows) {
        if (rows.length === 0) return;
        const byLink = rowsByLink(rows);
        const links = [...byLink.keys()];
        redis
          .pubsub('NUMSUB', ...links.map(storedVisitsChannel))
          // [channel, subscribers, channel, subscribers, ...], in the order asked.
          .then((counts) => {
            sent();
            links.forEach((urlID, at) => {
              if (Number(counts[2 * at + 1]) === 0) return;
              const notice = noticeOf(urlID, byLink.get(urlID)!);
              redis.publish(storedVisitsChannel(urlID), JSON.stringify(notice)).then(sent, failed);
            });
          })
          .catch(failed);
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

  stored(rows: readonly VisitRow[]): void {
    for (const [urlID, visits] of rowsByLink(rows)) {
      if (this.events.listenerCount(urlID) === 0) continue;
      this.events.emit(urlID, noticeOf(urlID, visits));
    }
  }

  subscribe(urlID: string, listener: (batch: StoredVisits) => void): () => void {
    this.events.on(urlID, listener);
    return () => this.events.off(urlID, listener);
  }
}
