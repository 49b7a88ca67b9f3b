import type { Adapter, Logger } from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import { API_KEY_ID_PATTERN } from '@shortener/contracts';

/**
 * Revoked API keys, announced to every gateway instance so none keeps using what it
 * remembered of them (ApiKeyResolver). A port: Redis pub/sub between instances, or the
 * embedded mode's one process.
 */
export interface KeyRevocations {
  /** Tells every instance, this one included, that the key of this id is revoked. */
  announce(keyId: string): Promise<void>;
  /** Hears each announcement. */
  onRevoked(listener: (keyId: string) => void): void;
  /**
   * Whether announcements reach this instance now. While they do not, nothing may be
   * remembered; when they do again, what was remembered before may have been revoked in
   * between: `onResumed` hears that moment.
   */
  listening(): boolean;
  onResumed(listener: () => void): void;
}

const KEY_REVOCATION_CHANNEL = 'api-keys:revoked';

/**
 * Revocations over Redis pub/sub, listening only once Redis confirms the subscription; anything
 * not a key id is dropped (a forged one only costs a lookup).
 */
export function redisKeyRevocations(url: string, logger: Logger): Adapter<KeyRevocations> {
  const subscriber = createRedis(url, logger, {
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
  });
  const publisher = createRedis(url, logger);
  const revoked = new Set<(keyId: string) => void>();
  const resumed = new Set<() => void>();
  let subscribed = false;
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== KEY_REVOCATION_CHANNEL || !API_KEY_ID_PATTERN.test(message)) return;
    for (const listener of revoked) listener(message);
  });
  subscriber.on('close', () => {
    subscribed = false;
  });
  const subscribe = (): void => {
    subscriber.subscribe(KEY_REVOCATION_CHANNEL).then(
      () => {
        if (subscribed) return;
        subscribed = true;
        for (const listener of resumed) listener();
      },
      (error: unknown) => {
        logger.warn({ err: (error as Error).message }, 'api keys: subscribe to revocations failed');
      },
    );
  };
  subscriber.on('ready', subscribe);
  return {
    value: {
      announce: async (keyId) => {
        await publisher.publish(KEY_REVOCATION_CHANNEL, keyId);
      },
      onRevoked: (listener) => void revoked.add(listener),
      listening: () => subscribed && subscriber.status === 'ready',
      onResumed: (listener) => void resumed.add(listener),
    },
    // Reported, not required: without it keys are looked up on every call, and still work.
    checks: [{ ...redisReadiness(publisher, 'redis (api key revocations)'), optional: true }],
    close: async () => {
      await Promise.all([closeRedis(subscriber), closeRedis(publisher)]);
    },
  };
}

/** The embedded mode's: one gateway, which hears what it announces at once. */
export class InProcessKeyRevocations implements KeyRevocations {
  private readonly listeners = new Set<(keyId: string) => void>();

  announce(keyId: string): Promise<void> {
    for (const listener of this.listeners) listener(keyId);
    return Promise.resolve();
  }

  onRevoked(listener: (keyId: string) => void): void {
    this.listeners.add(listener);
  }

  listening(): boolean {
    return true;
  }

  onResumed(_listener: () => void): void {
    // Always listening: never resumes.
  }
}
