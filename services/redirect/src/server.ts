import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  closingSteps,
  createLogger,
  createMetrics,
  InternalClient,
  onShutdown,
  opsRoutes,
  type Logger,
  type ReadinessCheck,
} from '@shortener/chassis';
import { refusedLink, type RedirectAdapters } from './adapters';
import { clientIp, trustedProxies } from './client-ip';
import type { RedirectConfig } from './config';
import { LinkResolver } from './link-resolver';
import { redirectMetrics } from './metrics';
import { MissBudget } from './miss-budget';
import { createRedirectHandler } from './redirect-handler';
import { VisitQueue } from './visit-queue';

const METHOD_NOT_ALLOWED = { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' };

/** Clients whose misses are counted at once (about 100 bytes each); the oldest go first. */
const MISS_BUDGET_CLIENTS = 50_000;

/**
 * Ready while links can be looked up: in the cache, or failing that from the links service.
 * Kafka (and Redis on its own) are reported but optional: without them redirects go on,
 * visits wait in the queue, and taking every instance out of service would be the outage.
 */
function readinessChecks(adapters: RedirectAdapters, linksUrl: string): ReadinessCheck[] {
  const cacheChecks = adapters.linkCache.checks;
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
    ...[...cacheChecks, ...adapters.visits.checks].map((check) => ({ ...check, optional: true })),
  ];
}

export interface RedirectOptions {
  config: RedirectConfig;
  adapters: RedirectAdapters;
  logger?: Logger;
  /** Hosted in another process (the embedded mode), which handles signals and exit. */
  hosted?: boolean;
}

export interface RunningRedirect {
  port: number;
  server: Server;
  shutdown: (reason: string) => Promise<void>;
}

/**
 * Starts the redirect service: node:http, no framework. `/r/{code}` is answered from memory,
 * the link cache or the links service; every visit is queued and published in batches.
 */
export async function startRedirect({
  config,
  adapters,
  logger = createLogger('redirect', config.LOG_LEVEL),
  hosted = false,
}: RedirectOptions): Promise<RunningRedirect> {
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const { registry } = createMetrics('redirect');

  const cache = adapters.linkCache.value;
  const resolver = new LinkResolver(
    cache,
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
  const unsubscribe = cache.subscribe((code) => resolver.forget(code));

  const metrics = redirectMetrics(registry, {
    // Read at scrape time, once the queue below exists.
    queueDepth: () => visits.depth,
    localCacheEntries: () => resolver.size,
  });
  const visits = new VisitQueue(adapters.visits.value, {
    maxSize: config.VISIT_QUEUE_MAX,
    batchMax: config.VISIT_BATCH_MAX,
    flushIntervalMs: config.VISIT_FLUSH_INTERVAL_MS,
    logger,
    onCount: (counter, by) => metrics.queue[counter].inc(by),
  });

  const handleRedirect = createRedirectHandler({
    resolver,
    misses,
    queue: visits,
    clientIp: (req) => clientIp(req, proxies),
    count: metrics.outcome,
    onError: (error) => logger.error({ err: error }, 'redirect failed'),
  });

  let shuttingDown = false;
  const ops = opsRoutes(
    'redirect',
    {
      registry,
      checks: readinessChecks(adapters, config.LINKS_URL),
      isShuttingDown: () => shuttingDown,
    },
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
          const queued = visits.depth;
          await visits.drain();
          logger.info({ published: queued }, 'queued visits published');
        },
      },
      { name: 'stop listening for invalidations', run: async () => (await unsubscribe)() },
      // The visit publisher closes before the cache, as before: queued visits are out.
      ...closingSteps({ visits: adapters.visits, linkCache: adapters.linkCache }),
      { name: 'close the ops port', run: () => ops.close() },
    ],
  });
  return { port, server, shutdown };
}
