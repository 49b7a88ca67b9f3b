import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Counter, Gauge } from 'prom-client';
import {
  createLogger,
  createMetrics,
  exitOnStartupError,
  handleOpsRequest,
  InternalClient,
  onShutdown,
  retryForever,
  type ReadinessCheck,
} from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis/redis';
import { createKafka } from '@shortener/chassis/kafka';
import { RedisLinkCache } from '@shortener/link-cache';
import { clientIp, trustedProxies } from './client-ip';
import { loadRedirectConfig } from './config';
import { KafkaVisitPublisher } from './kafka-publisher';
import { LinkResolver } from './link-resolver';
import { createRedirectHandler } from './redirect-handler';
import { VisitQueue } from './visit-queue';

const METHOD_NOT_ALLOWED = { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' };

async function main(): Promise<void> {
  const config = loadRedirectConfig();
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const logger = createLogger('redirect', config.LOG_LEVEL);
  const { registry } = createMetrics('redirect');

  const redis = createRedis(config.REDIS_URL, logger);
  const cache = new RedisLinkCache(redis);
  const resolver = new LinkResolver(
    cache,
    new InternalClient('links', config.LINKS_URL, config.INTERNAL_API_SECRET, 2000),
    {
      ttlMs: config.LOCAL_CACHE_TTL_MS,
      negativeTtlMs: config.NEGATIVE_CACHE_TTL_MS,
      maxEntries: config.LOCAL_CACHE_MAX_ENTRIES,
    },
  );
  const unsubscribe = cache.subscribe((code) => resolver.forget(code));

  const producer = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'redirect',
    logger,
  }).producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // While the broker is away a batch waits and is retried by the producer itself, with its
    // sequence numbers, so Kafka keeps it exactly once; redirects never wait for it.
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2000 },
  });
  let producerConnected = false;
  producer.on(producer.events.CONNECT, () => (producerConnected = true));
  producer.on(producer.events.DISCONNECT, () => (producerConnected = false));
  const connecting = retryForever(
    () => producer.connect(),
    (error, retryInMs) =>
      logger.warn({ err: (error as Error).message, retryInMs }, 'Kafka not available yet'),
  );

  const visitCounters = {
    published: new Counter({
      name: 'visit_events_published_total',
      help: 'Visit events published to Kafka',
      registers: [registry],
    }),
    dropped: new Counter({
      name: 'visit_events_dropped_total',
      help: 'Visit events dropped because the queue was full',
      registers: [registry],
    }),
    publishErrors: new Counter({
      name: 'visit_publish_errors_total',
      help: 'Failed attempts to publish a batch of visits',
      registers: [registry],
    }),
  };
  const invalidEvents = new Counter({
    name: 'visit_events_invalid_total',
    help: 'Visit events that failed their schema and were not sent',
    registers: [registry],
  });
  const queue = new VisitQueue(
    new KafkaVisitPublisher(producer, logger, () => invalidEvents.inc()),
    {
      maxSize: config.VISIT_QUEUE_MAX,
      batchMax: config.VISIT_BATCH_MAX,
      flushIntervalMs: config.VISIT_FLUSH_INTERVAL_MS,
      logger,
      onCount: (counter, by) => visitCounters[counter].inc(by),
    },
  );
  new Gauge({
    name: 'visit_queue_depth',
    help: 'Visit events waiting to be published',
    registers: [registry],
    collect() {
      this.set(queue.depth);
    },
  });
  new Gauge({
    name: 'redirect_local_cache_entries',
    help: "Codes held in this instance's memory",
    registers: [registry],
    collect() {
      this.set(resolver.size);
    },
  });
  const outcomes = new Counter({
    name: 'redirects_total',
    help: 'Short link requests by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const outcomeCounters = {
    redirected: outcomes.labels('redirected'),
    not_found: outcomes.labels('not_found'),
    unavailable: outcomes.labels('unavailable'),
  };

  const handleRedirect = createRedirectHandler({
    resolver,
    queue,
    clientIp: (req) => clientIp(req, proxies, config.TRUSTED_PROXIES.length > 0),
    count: (outcome) => outcomeCounters[outcome].inc(),
    onError: (error) => logger.error({ err: error }, 'redirect failed'),
  });

  const checks: ReadinessCheck[] = [
    redisReadiness(redis),
    {
      name: 'kafka',
      check: () =>
        producerConnected ? Promise.resolve() : Promise.reject(new Error('producer not connected')),
    },
  ];
  let shuttingDown = false;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url.startsWith('/r/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, METHOD_NOT_ALLOWED);
        res.end('Method not allowed');
        return;
      }
      const query = url.indexOf('?');
      handleRedirect(req, res, query === -1 ? url.slice(3) : url.slice(3, query));
      return;
    }
    if (handleOpsRequest(req, res, { registry, checks, isShuttingDown: () => shuttingDown }))
      return;
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  logger.info({ port: config.PORT }, `redirect listening on port ${config.PORT}`);

  onShutdown({
    logger,
    steps: [
      {
        name: 'stop taking requests',
        run: async () => {
          shuttingDown = true;
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      },
      {
        name: 'publish queued visits',
        run: async () => {
          const queued = queue.depth;
          await connecting;
          await queue.drain();
          logger.info({ published: queued }, 'queued visits published');
        },
      },
      { name: 'disconnect Kafka', run: () => producer.disconnect() },
      { name: 'stop listening for invalidations', run: async () => (await unsubscribe)() },
      { name: 'disconnect Redis', run: () => closeRedis(redis) },
    ],
  });
}

main().catch((error: unknown) =>
  exitOnStartupError('redirect', error, Number(process.env['PORT'] ?? 7004)),
);
