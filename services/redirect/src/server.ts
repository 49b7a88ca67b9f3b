import { once } from 'node:events';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type ListenOptions } from 'node:net';
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
import { clientIp, clientIpFromEdge, trustedProxies } from './client-ip';
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

/** Listens at `where`; rejects with the server's error (EADDRINUSE...) if it cannot. */
async function listen(server: Server, where: ListenOptions): Promise<void> {
  server.listen(where);
  await once(server, 'listening');
}

/** Whether a server answers on the Unix socket at `path` (false: a file nobody listens on). */
function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve(false) : reject(error),
    );
  });
}

/**
 * Listens on the Unix socket at `path`, open to every local user (the edge's workers may run
 * as another one). A socket an instance left behind when it was killed is replaced; one a
 * running server answers on, or a file that is not a socket, is an error.
 */
async function listenOnSocket(server: Server, path: string): Promise<void> {
  try {
    await listen(server, { path });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (!lstatSync(path).isSocket()) {
      throw new Error(`UNIX_SOCKET: ${path} exists and is not a socket`);
    }
    if (await socketAnswers(path)) {
      throw new Error(`UNIX_SOCKET: ${path} is in use: another server answers there`);
    }
    rmSync(path, { force: true });
    await listen(server, { path });
  }
  chmodSync(path, 0o666);
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

  const redirectDeps = {
    resolver,
    misses,
    queue: visits,
    count: metrics.outcome,
    onError: (error: unknown) => logger.error({ err: error }, 'redirect failed'),
  };
  const handleRedirect = createRedirectHandler({
    ...redirectDeps,
    clientIp: (req) => clientIp(req, proxies),
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
  /** /r/{code} by GET or HEAD; true when `url` is a redirect's (answered, then). */
  function redirectRoute(
    handle: typeof handleRedirect,
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
  ): boolean {
    if (!url.startsWith('/r/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, METHOD_NOT_ALLOWED);
      res.end('Method not allowed');
      return true;
    }
    const query = url.indexOf('?');
    handle(req, res, query === -1 ? url.slice(3) : url.slice(3, query));
    return true;
  }
  function notFound(res: ServerResponse): void {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (redirectRoute(handleRedirect, req, res, url) || ops.handle(req, res)) return;
    notFound(res);
  });

  // The edge's own way in: /r/ only (never /readyz or /metrics), its X-Forwarded-For believed.
  // Bound first, so that a socket in use stops the start-up before anything answers.
  let edgeServer: Server | undefined;
  if (config.UNIX_SOCKET !== undefined) {
    const handleFromEdge = createRedirectHandler({
      ...redirectDeps,
      clientIp: (req) => clientIpFromEdge(req, proxies),
    });
    edgeServer = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!redirectRoute(handleFromEdge, req, res, req.url ?? '/')) notFound(res);
    });
    await listenOnSocket(edgeServer, config.UNIX_SOCKET);
  }
  try {
    await listen(server, { port: config.PORT, host: config.HOST });
  } catch (error) {
    edgeServer?.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info(
    { port, socket: config.UNIX_SOCKET },
    `redirect listening on port ${port}` +
      (config.UNIX_SOCKET === undefined ? '' : ` and on ${config.UNIX_SOCKET}`),
  );
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
          await Promise.all(
            [server, edgeServer].map(
              (listening) =>
                new Promise<void>((resolve) =>
                  listening ? listening.close(() => resolve()) : resolve(),
                ),
            ),
          );
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
