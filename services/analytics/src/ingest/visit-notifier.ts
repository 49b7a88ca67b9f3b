import { EventEmitter } from 'node:events';
import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis } from '@shortener/chassis-redis';
import {
  accountVisitsKey,
  DIRECT_REFERRER,
  storedVisitsChannel,
  type LiveVisit,
  type StoredVisits,
} from '@shortener/contracts';
import type { VisitRow } from './ingest.repository';

/**
 * Told of visits after their commit, for the live streams: best effort, never holding up
 * ingest, and built only for links (and accounts) someone listens to.
 */
export interface VisitNotifier {
  /**
   * The rows one transaction inserted, once it committed, with the owner of each of their
   * links that has one: each link's notice goes under its code and its owner's key.
   */
  stored(rows: readonly VisitRow[], owners?: ReadonlyMap<string, string>): void;
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

/** Each link's rows with the keys its notice goes under: its code, and its owner's key. */
function keyedNotices(
  rows: readonly VisitRow[],
  owners: ReadonlyMap<string, string> | undefined,
): Array<{ keys: string[]; rows: VisitRow[]; urlID: string }> {
  return [...rowsByLink(rows)].map(([urlID, visits]) => {
    const owner = owners?.get(urlID);
    return {
      urlID,
      rows: visits,
      keys: owner === undefined ? [urlID] : [urlID, accountVisitsKey(owner)],
    };
  });
}

/**
 * Notices on Redis pub/sub, a channel per link and per account, published only where there
 * are subscribers (one PUBSUB NUMSUB after each commit, so any stream subscribed before the
 * commit is told).
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
      stored(rows, owners) {
        if (rows.length === 0) return;
        const notices = keyedNotices(rows, owners);
        const keys = [...new Set(notices.flatMap((notice) => notice.keys))];
        redis
          .pubsub('NUMSUB', ...keys.map(storedVisitsChannel))
          // [channel, subscribers, channel, subscribers, ...], in the order asked.
          .then((counts) => {
            sent();
            const heard = new Set(keys.filter((_, at) => Number(counts[2 * at + 1]) > 0));
            for (const notice of notices) {
              const to = notice.keys.filter((key) => heard.has(key));
              if (to.length === 0) continue;
              const message = JSON.stringify(noticeOf(notice.urlID, notice.rows));
              for (const key of to) {
                redis.publish(storedVisitsChannel(key), message).then(sent, failed);
              }
            }
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

  stored(rows: readonly VisitRow[], owners?: ReadonlyMap<string, string>): void {
    for (const notice of keyedNotices(rows, owners)) {
      const to = notice.keys.filter((key) => this.events.listenerCount(key) > 0);
      if (to.length === 0) continue;
      const message = noticeOf(notice.urlID, notice.rows);
      for (const key of to) this.events.emit(key, message);
    }
  }

  /** Listens to a link's notices, or to an account's under its key (accountVisitsKey). */
  subscribe(key: string, listener: (batch: StoredVisits) => void): () => void {
    this.events.on(key, listener);
    return () => this.events.off(key, listener);
  }
}
