import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import { storedVisitsChannel, storedVisitsSchema, type StoredVisits } from '@shortener/contracts';
import { decodeInvalidation, INVALIDATION_CHANNEL } from '@shortener/link-cache';

export type StoredVisitsListener = (batch: StoredVisits) => void;

/** Notices of the visits analytics stored, per link: what the live streams send on. */
export interface LiveVisitFeed {
  /** Listens to one link's notices; returns what stops listening. */
  subscribe(urlID: string, listener: StoredVisitsListener): () => void;
  /**
   * Listens to the links deleted or purged anywhere, where the feed hears of them. The
   * embedded mode's in-process feed does not; its one gateway knows the deletions it makes.
   */
  onLinkRemoved?(listener: (urlID: string) => void): void;
}

const CHANNEL_PREFIX = storedVisitsChannel('');

/**
 * Redis pub/sub, a channel per watched link, on a connection of its own; anything not a notice
 * is dropped. Removed links come from the link cache's deletion broadcast.
 */
export function redisLiveVisits(url: string, logger: Logger): Adapter<LiveVisitFeed> {
  // Subscriptions wait in the offline queue while Redis is away, and are made when it is back.
  const redis = createRedis(url, logger, { enableOfflineQueue: true, maxRetriesPerRequest: null });
  const listeners = new Map<string, Set<StoredVisitsListener>>();
  const removalListeners = new Set<(urlID: string) => void>();
  redis.on('message', (channel: string, message: string) => {
    if (channel === INVALIDATION_CHANNEL) {
      // The broadcast also carries edits and restores: those streams go on.
      const { code, removed } = decodeInvalidation(message);
      if (removed) for (const listener of removalListeners) listener(code);
      return;
    }
    if (!channel.startsWith(CHANNEL_PREFIX)) return;
    const watching = listeners.get(channel.slice(CHANNEL_PREFIX.length));
    if (!watching) return;
    let batch: StoredVisits;
    try {
      batch = storedVisitsSchema.parse(JSON.parse(message));
    } catch {
      logger.warn({ channel }, 'live visit notice dropped: not a notice');
      return;
    }
    for (const listener of watching) listener(batch);
  });
  // A removal announced while Redis is away is missed: that stream ends with its session.
  redis.subscribe(INVALIDATION_CHANNEL).catch((error: unknown) => {
    logger.warn({ err: (error as Error).message }, 'live visits: subscribe to removals failed');
  });
  const feed: LiveVisitFeed = {
    subscribe(urlID, listener) {
      let watching = listeners.get(urlID);
      if (!watching) {
        watching = new Set();
        listeners.set(urlID, watching);
        redis.subscribe(storedVisitsChannel(urlID)).catch((error: unknown) => {
          logger.warn({ err: (error as Error).message, urlID }, 'live visits: subscribe failed');
        });
      }
      watching.add(listener);
      return () => {
        watching.delete(listener);
        if (watching.size > 0 || listeners.get(urlID) !== watching) return;
        listeners.delete(urlID);
        redis.unsubscribe(storedVisitsChannel(urlID)).catch(() => undefined);
      };
    },
    onLinkRemoved(listener) {
      removalListeners.add(listener);
    },
  };
  return {
    value: feed,
    // Reported, not required: without it the live streams pause, everything else works.
    checks: [{ ...redisReadiness(redis, 'redis (live visits)'), optional: true }],
    close: () => closeRedis(redis),
  };
}
