import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  clientIp,
  clientIpFromEdge,
  closingSteps,
  createMetrics,
  hasBody,
  InternalClient,
  limitRequestTimes,
  opsRoutes,
  readinessChecks,
  serve,
  serviceAlive,
  trustedProxies,
  type RunningService,
  type StartOptions,
  brandedHostOf,
} from '@shortener/chassis';
import { MESSAGES, SHORT_LINK_PREFIX } from '@shortener/contracts';
import { sampledSpan, tracingEnabled } from '@shortener/telemetry';
import { refusedLink, type RedirectAdapters } from './adapters';
import type { RedirectConfig } from './config';
import { LinkResolver } from './link-resolver';
import { redirectMetrics, shortLinkTimer } from './metrics';
import { MissBudget } from './miss-budget';
import { visitorLookups } from './link-rules';
import { createRedirectHandler } from './redirect-handler';
import { VisitQueue } from './visit-queue';
import { stopVisits } from './visit-shutdown';
import { VisitSpool } from './visit-spool';

const METHOD_NOT_ALLOWED = { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' };
const BODY_REFUSED = {
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  connection: 'close',
};
const BODY_REFUSED_TEXT = JSON.stringify({ message: MESSAGES.noBodyOnShortLink });

/** Clients whose misses are counted at once (about 100 bytes each); the oldest go first. */
const MISS_BUDGET_CLIENTS = 50_000;

/**
 * Starts the redirect service: node:http, no framework. `/r/{code}` is answered from memory,
 * the link cache or the links service; every visit is queued and published in batches.
 */
export async function startRedirect({
  config,
  adapters,
  logger,
  hosted,
}: StartOptions<RedirectConfig, RedirectAdapters>): Promise<RunningService> {
  const proxies = trustedProxies(config.TRUSTED_PROXIES);
  const { registry, httpRequests } = createMetrics('redirect');

  const cache = adapters.linkCache.value;
  const resolver = new LinkResolver(
    cache,
    new InternalClient('links', config.LINKS_URL, config.INTERNAL_API_SECRET, 2000),
    {
      ttlMs: config.LOCAL_CACHE_TTL_MS,
      negativeTtlMs: config.NEGATIVE_CACHE_TTL_MS,
      maxEntries: config.LOCAL_CACHE_MAX_ENTRIES,
      reconnectGraceMs: config.REDIS_RECONNECT_GRACE_MS,
      onRefused: refusedLink(logger),
    },
  );
  const misses = new MissBudget({
    perMinute: config.REDIRECT_MISS_BUDGET,
    burst: config.REDIRECT_MISS_BURST,
    maxClients: MISS_BUDGET_CLIENTS,
  });
  const unsubscribe = cache.subscribe((code, version) => {
    if (code !== null && version !== undefined) resolver.noteVersion(code, version);
    resolver.forget(code);
  });

  const spooled =
    config.VISIT_SPOOL_DIR === undefined
      ? undefined
      : VisitSpool.open(config.VISIT_SPOOL_DIR, {
          maxBytes: config.VISIT_SPOOL_MAX_BYTES,
          runMax: config.VISIT_BATCH_MAX,
          logger,
          onEvicted: (count) => metrics.spool.evicted.inc(count),
          onError: () => metrics.spool.errors.inc(),
        });
  const metrics = redirectMetrics(registry, {
    // Read at scrape time, once the queue below exists.
    queueDepth: () => visits.depth,
    queueLimit: config.VISIT_QUEUE_MAX,
    localCacheEntries: () => resolver.size,
    ...(spooled
      ? {
          spoolBytes: () => spooled.spool.bytes,
          spoolLimitBytes: config.VISIT_SPOOL_MAX_BYTES,
        }
      : {}),
  });
  const visits = new VisitQueue(adapters.visits.value, {
    maxSize: config.VISIT_QUEUE_MAX,
    batchMax: config.VISIT_BATCH_MAX,
    flushIntervalMs: config.VISIT_FLUSH_INTERVAL_MS,
    logger,
    onCount: (counter, by) => metrics.queue[counter].inc(by),
    ...(spooled ? { spool: spooled } : {}),
  });

  const timer = shortLinkTimer(httpRequests);
  const redirectDeps = {
    resolver,
    misses,
    queue: visits,
    count: metrics.outcome,
    timer,
    onError: (error: unknown) => logger.error({ err: error }, 'redirect failed'),
    // Tracing on: each visit carries its request's span to Kafka (the store span links to it).
    ...(tracingEnabled() ? { traceOf: sampledSpan } : {}),
    counters: adapters.counters.value,
    lookups: visitorLookups(config.GEOIP_DATABASE),
    passwordTries: { limit: config.LINK_PASSWORD_TRIES, windowMs: config.LINK_PASSWORD_WINDOW_MS },
  };
  const handleRedirect = createRedirectHandler({
    ...redirectDeps,
    clientIp: (req) => clientIp(req, proxies),
  });

  let shuttingDown = false;
  let stoppingSince = 0;
  const ops = opsRoutes(
    'redirect',
    {
      registry,
      // Ready whenever it runs: Redis, Kafka and the links service are reported (in /readyz
      // and dependency_up) but never fail readiness. Links in memory keep redirecting without
      // any of them, visits wait in the queue, and a Redis or links outage failing every
      // redirect pod at once would be the outage of every short link.
      checks: readinessChecks([serviceAlive('links', config.LINKS_URL, 1000)], adapters),
      isShuttingDown: () => shuttingDown,
    },
    config,
    logger,
  );
  /**
   * /r/{code}, or on a branded host (`host`) /{slug}, by GET, HEAD or POST (a password
   * link's form); true when `url` is one of them (answered, then).
   */
  function redirectRoute(
    handle: typeof handleRedirect,
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    host?: string,
  ): boolean {
    const start = host === undefined ? SHORT_LINK_PREFIX.length : 1;
    if (host === undefined && !url.startsWith(SHORT_LINK_PREFIX)) return false;
    const startedAt = performance.now();
    const method = req.method ?? '';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      res.writeHead(405, METHOD_NOT_ALLOWED);
      res.end('Method not allowed');
      timer.refused(method, 405, startedAt);
      return true;
    }
    // A body is never read here: left on a kept-alive connection, a length sent without it
    // (a proxy's mistake) would take the next request, anyone's, for it. Refused, and the
    // connection closed. Only a password form's POST has one, read by its handler.
    if (method !== 'POST' && hasBody(req)) {
      res.writeHead(400, BODY_REFUSED);
      res.end(BODY_REFUSED_TEXT);
      timer.refused(method, 400, startedAt);
      return true;
    }
    const mark = url.indexOf('?');
    const code = mark === -1 ? url.slice(start) : url.slice(start, mark);
    // A query string is forwarded to the destination: none, no work.
    const query = mark === -1 || mark === url.length - 1 ? undefined : url.slice(mark + 1);
    handle(req, res, code, startedAt, query, host);
    return true;
  }
  const brandedHost = brandedHostOf([
    new URL(config.PUBLIC_ORIGIN).host,
    ...config.SHORT_LINK_HOSTS,
  ]);
  /** A request of the service's own hosts' (/r/, ops), or a branded host's (its slugs only). */
  function route(handle: typeof handleRedirect, req: IncomingMessage, res: ServerResponse) {
    const url = req.url ?? '/';
    if (redirectRoute(handle, req, res, url)) return true;
    const host = brandedHost(req.headers.host);
    return host !== undefined && redirectRoute(handle, req, res, url, host);
  }
  function notFound(res: ServerResponse): void {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (route(handleRedirect, req, res) || ops.handle(req, res)) return;
    notFound(res);
  });
  limitRequestTimes(server, config);

  // The edge's own way in: short links only (never /readyz or /metrics), its X-Forwarded-For
  // believed.
  let edge: { server: Server; path: string } | undefined;
  if (config.UNIX_SOCKET !== undefined) {
    const handleFromEdge = createRedirectHandler({
      ...redirectDeps,
      clientIp: (req) => clientIpFromEdge(req, proxies),
    });
    const edgeServer = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!route(handleFromEdge, req, res)) notFound(res);
    });
    limitRequestTimes(edgeServer, config);
    edge = { server: edgeServer, path: config.UNIX_SOCKET };
  }
  return serve({
    name: 'redirect',
    server,
    unixSocket: edge,
    config,
    logger,
    hosted,
    ops,
    stopping: () => {
      stoppingSince = Date.now();
      shuttingDown = true;
    },
    steps: [
      {
        name: 'publish queued visits',
        run: () =>
          stopVisits({ visits, spool: spooled?.spool, config, logger, ops, since: stoppingSince }),
      },
      { name: 'stop listening for invalidations', run: async () => (await unsubscribe)() },
      // The visit publisher closes before the cache, as before: queued visits are out.
      ...closingSteps({
        visits: adapters.visits,
        counters: adapters.counters,
        linkCache: adapters.linkCache,
      }),
    ],
  });
}
