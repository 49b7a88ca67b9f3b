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
 * Told of visits after their commit, for the live streams: best effort, never holding up
 * ingest, and built only for links someone listens to.
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
    utmSource: row.utmSource ?? null,
    utmMedium: row.utmMedium ?? null,
    utmCampaign: row.utmCampaign ?? null,
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
 * Notices on Redis pub/sub, a channel per link, published only to links with subscribers
 * (one PUBSUB NUMSUB after each commit, so any stream subscribed before the commit is told).
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
