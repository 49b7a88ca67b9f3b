import type { Logger } from 'pino';
import { adapterConnector, periodic, retryForever, type Adapter } from '@shortener/chassis';
import { VISITS_TOPIC } from '@shortener/contracts';
import { createKafka, createProducer } from '@shortener/chassis-kafka';
import {
  redisLinkCache,
  redisLinkCounters,
  type LinkCache,
  type LinkCounters,
} from '@shortener/link-cache';
import type { RedirectConfig } from './config';
import { KafkaVisitPublisher } from './visit-publishers';
import type { VisitPublisher } from './visit-queue';

/** What the redirect service talks to: the link cache it reads, where visits go. */
export interface RedirectAdapters {
  linkCache: Adapter<LinkCache>;
  visits: Adapter<VisitPublisher>;
  /** Capped links' visits and wrong password tries, shared by every instance. */
  counters: Adapter<LinkCounters>;
}

/** How often the publisher looks again at how many partitions the visits topic has. */
const PARTITIONS_RECOUNT_MS = 60_000;

/** A link the links service answered with that no redirect may send to: answered 404. */
export function refusedLink(logger: Logger) {
  return (code: string, reason: string) =>
    logger.warn({ code, reason }, 'stored link refused: answered as not found');
}

/**
 * The redirect's link cache in Redis. A refused entry (forged, unsigned, or a link to
 * anything but an http(s) URL: someone wrote to the cache who should not) is logged, removed
 * and looked up in the links service, which has the truth.
 */
function redirectLinkCache(config: RedirectConfig, logger: Logger): Adapter<LinkCache> {
  return redisLinkCache(config, logger, (code, reason) =>
    logger.warn({ code, reason }, 'cached link refused: looked up in the links service'),
  );
}

/**
 * Visits to Kafka with an idempotent producer that connects in the background: redirects
 * never wait for it, and visits wait in the queue meanwhile.
 */
function kafkaVisitPublisher(config: RedirectConfig, logger: Logger): Adapter<VisitPublisher> {
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'redirect',
    logger,
    security: config,
  });
  const producer = createProducer(kafka, {
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // While the broker is away a batch waits and is retried by the producer itself, with its
    // sequence numbers, so Kafka keeps it exactly once; redirects never wait for it.
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2000 },
  });
  let connected = false;
  let partitions: number | undefined;
  producer.on(producer.events.CONNECT, () => (connected = true));
  producer.on(producer.events.DISCONNECT, () => (connected = false));
  const countPartitions = async (): Promise<void> => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [topic] = (await admin.fetchTopicMetadata({ topics: [VISITS_TOPIC] })).topics;
      partitions = topic?.partitions.length;
    } finally {
      await admin.disconnect();
    }
  };
  void retryForever(
    async () => {
      await producer.connect();
      await countPartitions();
    },
    (error, retryInMs) =>
      logger.warn({ err: (error as Error).message, retryInMs }, 'Kafka not available yet'),
  );
  // Partitions added to the topic are written to from the next count on.
  const recount = periodic({
    name: 'count visits partitions',
    everyMs: PARTITIONS_RECOUNT_MS,
    run: countPartitions,
    logger,
  });
  return {
    value: new KafkaVisitPublisher(producer, () => partitions),
    checks: [
      {
        name: 'kafka',
        check: () =>
          connected && partitions !== undefined
            ? Promise.resolve()
            : Promise.reject(new Error('producer not connected')),
      },
    ],
    close: async () => {
      await recount.stop();
      await producer.disconnect();
    },
  };
}

/** The distributed mode's adapters (but those given), from the configuration: Redis and Kafka. */
export const connectAdapters = adapterConnector<RedirectConfig, RedirectAdapters>(
  (config, logger) => ({
    linkCache: () => redirectLinkCache(config, logger),
    visits: () => kafkaVisitPublisher(config, logger),
    counters: () => redisLinkCounters(config, logger),
  }),
);
