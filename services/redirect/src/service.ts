import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import {
  createLogger,
  createMetrics,
  opsRoutes,
  InternalClient,
  IN_PROCESS,
  onShutdown,
  retryForever,
  sharedVisitBus,
  type ReadinessCheck,
} from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis-redis';
import { createKafka } from '@shortener/chassis-kafka';
import { RedisLinkCache, sharedMemoryLinkCache, type LinkCache } from '@shortener/link-cache';
import { clientIp, trustedProxies } from './client-ip';
import { loadRedirectConfig, type RedirectConfig } from './config';
import { LinkResolver } from './link-resolver';
import { MissBudget } from './miss-budget';
import { createRedirectHandler } from './redirect-handler';
import { InProcessVisitPublisher, KafkaVisitPublisher } from './visit-publishers';
import { VisitQueue, type VisitPublisher } from './visit-queue';

const METHOD_NOT_ALLOWED = { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' };

type Step = { name: string; run: () => Promise<void> };

/** Clients whose misses are counted at once (about 100 bytes each); the oldest go first. */
const MISS_BUDGET_CLIENTS = 50_000;

interface Adapter<T> {
  value: T;
  checks: ReadinessCheck[];
  /** Run at shutdown, after the visit queue has drained. */
  close: Step[];
}

/** A stored link to anything but an http(s) URL: someone wrote to the cache who should not. */
function refusedLink(logger: Logger) {
  return (code: string, reason: string) =>
    logger.warn({ code, reason }, 'stored link refused: answered as not found');
}

function linkCache(config: RedirectConfig, logger: Logger): Adapter<LinkCache> {
  if (config.REDIS_URL.startsWith(`${IN_PROCESS}:`)) {
    return { value: sharedMemoryLinkCache(), checks: [], close: [] };
  }
  const redis = createRedis(config.REDIS_URL, logger);
  return {
    value: new RedisLinkCache(redis, { onRefused: refusedLink(logger) }),
    checks: [redisReadiness(redis)],
    close: [{ name: 'disconnect Redis', run: () => closeRedis(redis) }],
  };
}

function visitPublisher(
  config: RedirectConfig,
  logger: Logger,
  registry: Registry,
): Adapter<VisitPublisher> {
  const invalid = new Counter({
    name: 'visit_events_invalid_total',
    help: 'Visit events that failed their schema and were not sent',
    registers: [registry],
  });
  const onInvalid = () => invalid.inc();
  if (config.KAFKA_BROKERS.length === 1 && config.KAFKA_BROKERS[0] === IN_PROCESS) {
    const bus = sharedVisitBus();
    return {
      value: new InProcessVisitPublisher(bus, logger, onInvalid),
      checks: [
        {
          name: 'visit consumer',
          check: () =>
            bus.hasConsumer ? Promise.resolve() : Promise.reject(new Error('not running')),
        },
      ],
      close: [],
    };
  }
  const producer = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'redirect',
    logger,
    security: config,
  }).producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // While the broker is away a batch waits and is retried by the producer itself, with its
    // sequence numbers, so Kafka keeps it exactly once; redirects never wait for it.
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 2000 },
  });
  let connected = false;
  producer.on(producer.events.CONNECT, () => (connected = true));
  producer.on(producer.events.DISCONNECT, () => (connected = false));
  void retryForever(
    () => producer.connect(),
    (error, retryInMs) =>
      logger.warn({ err: (error as Error).message, retryInMs }, 'Kafka not available yet'),
  );
  return {
    value: new KafkaVisitPublisher(producer, logger, onInvalid),
    checks: [
      {
        name: 'kafka',
        check: () =>
          connected ? Promise.resolve() : Promise.reject(new Error('producer not connected')),
      },
    ],
    close: [{ name: 'disconnect Kafka', run: () => producer.disconnect() }],
  };
}

function queueMetrics(registry: Registry) {
  return {
    published: new Counter({
      name: 'visit_events_published_total',
      help: 'Visit events published',
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
}

/**
 * Ready while links can be looked up: in Redis, or failing that from the links service.
 * Kafka (and Redis on its own) are reported but optional: without them redirects go on,
 * visits wait in the queue, and taking every instance out of service would be the outage.
 */
function readinessChecks(
  cacheChecks: ReadinessCheck[],
  publisherChecks: ReadinessCheck[],
  linksUrl: string,
): ReadinessCheck[] {
  const lookup: ReadinessCheck = {
    name: 'link lookup',
    check: async () => {
      try {
        for (const { check } of cacheChecks) await check();
      } catch (cacheError) {
        const response = await fetch(new URL('/healthz', linksUrl), {
          signal: AbortSignal.timeout(1000),
        }).catch((error: unknown) => {
          throw new Error(
            `cache: ${(cacheError as Error).message}; links: ${(error as Error).message}`,
          );
        });
        if (!response.ok)
          throw new Error(`cache: ${(cacheError as Error).message}; links: ${response.status}`);
      }
    },
  };
  return [
    lookup,
    ...[...cacheChecks, ...publisherChecks].map((check) => ({ ...check, optional: true })),
  ];
}

export interface RunningRedirect {
  port: number;
  server: Server;
  shutdown: (reason: string) => Promise<void>;
}

/**
 * Starts the redirect service; `hosted` when another process (the embedded mode) hosts it
 * and handles signals.
 */
export async function startRedirect(hosted = false): Promise<RunningRedirect> {
  const config = loadRedirectConfig();
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const logger = createLogger('redirect', config.LOG_LEVEL);
  const { registry } = createMetrics('redirect');

  const cache = linkCache(config, logger);
  const resolver = new LinkResolver(
    cache.value,
    new InternalClient('links', config.LINKS_URL, config.INTERNAL_API_SECRET, 2000),
    {
      ttlMs: config.LOCAL_CACHE_TTL_MS,
      negativeTtlMs: config.NEGATIVE_CACHE_TTL_MS,
      maxEntries: config.LOCAL_CACHE_MAX_ENTRIES,
      onRefused: refusedLink(logger),
    },
  );
  const misses = new MissBudget({
    perMinute: config.REDIRECT_MISS_BUDGET,
    burst: config.REDIRECT_MISS_BURST,
    maxClients: MISS_BUDGET_CLIENTS,
  });
  const unsubscribe = cache.value.subscribe((code) => resolver.forget(code));

  const publisher = visitPublisher(config, logger, registry);
  const counters = queueMetrics(registry);
  const queue = new VisitQueue(publisher.value, {
    maxSize: config.VISIT_QUEUE_MAX,
    batchMax: config.VISIT_BATCH_MAX,
    flushIntervalMs: config.VISIT_FLUSH_INTERVAL_MS,
    logger,
    onCount: (counter, by) => counters[counter].inc(by),
  });
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
    too_many_misses: outcomes.labels('too_many_misses'),
  };

  const handleRedirect = createRedirectHandler({
    resolver,
    misses,
    queue,
    clientIp: (req) => clientIp(req, proxies),
    count: (outcome) => outcomeCounters[outcome].inc(),
    onError: (error) => logger.error({ err: error }, 'redirect failed'),
  });

  const checks = readinessChecks(cache.checks, publisher.checks, config.LINKS_URL);
  let shuttingDown = false;
  const ops = opsRoutes(
    'redirect',
    { registry, checks, isShuttingDown: () => shuttingDown },
    config,
    logger,
  );
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
    if (ops.handle(req, res)) return;
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port }, `redirect listening on port ${port}`);
  await ops.listen();

  const shutdown = onShutdown({
    logger,
    handleSignals: !hosted,
    ...(hosted ? { exit: () => undefined } : {}),
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
          await queue.drain();
          logger.info({ published: queued }, 'queued visits published');
        },
      },
      ...publisher.close,
      { name: 'stop listening for invalidations', run: async () => (await unsubscribe)() },
      ...cache.close,
      { name: 'close the ops port', run: () => ops.close() },
    ],
  });
  return { port, server, shutdown };
}
