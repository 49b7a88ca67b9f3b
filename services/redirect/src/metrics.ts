import { performance } from 'node:perf_hooks';
import { Counter, Gauge, type Histogram, type Registry } from 'prom-client';
import { startAtZero } from '@shortener/chassis';
import { shortLinkApi } from '@shortener/contracts';

const OUTCOMES = [
  'redirected',
  'not_found',
  'unavailable',
  'too_many_misses',
  /** A password link's form shown (GET), or a wrong password posted. */
  'password_asked',
  'password_wrong',
  /** Wrong passwords past the limit of a link and client. */
  'too_many_tries',
] as const;
export type RedirectOutcome = (typeof OUTCOMES)[number];

/** The answers a short-link request gets once it is a GET or HEAD without a body. */
type ShortLinkStatus = 200 | 302 | 404 | 429 | 503;

/** The one `route` of every short-link request: never the code, whatever was asked. */
const SHORT_LINK_ROUTE = shortLinkApi.followShortLink.path;

type Observer = Histogram.Internal<'method' | 'route' | 'status'>;
type ByStatus = Record<ShortLinkStatus, Observer>;

/**
 * Observes short-link requests in the service's `http_request_duration_seconds`: one child
 * per method and status made at start-up (each series at 0 from then), so a request costs
 * one `observe` on a child it finds by its status, nothing built per request.
 */
export function shortLinkTimer(requests: Histogram<'method' | 'route' | 'status'>) {
  const byStatus = (method: 'GET' | 'HEAD'): ByStatus => {
    const child = (status: ShortLinkStatus): Observer => {
      const labels = { method, route: SHORT_LINK_ROUTE, status: String(status) };
      requests.zero(labels);
      return requests.labels(labels);
    };
    return {
      200: child(200),
      302: child(302),
      404: child(404),
      429: child(429),
      503: child(503),
    };
  };
  const get = byStatus('GET');
  const head = byStatus('HEAD');
  return {
    /** A GET or HEAD of /r/{code} answered `status`; `startedAt` from performance.now(). */
    answered(isHead: boolean, status: ShortLinkStatus, startedAt: number): void {
      (isHead ? head : get)[status].observe((performance.now() - startedAt) / 1000);
    },
    /**
     * A short-link request refused before any lookup (405, 400), or a password form's POST:
     * rare, labelled as it comes.
     */
    refused(method: string, status: number, startedAt: number): void {
      requests.observe(
        { method, route: SHORT_LINK_ROUTE, status: String(status) },
        (performance.now() - startedAt) / 1000,
      );
    },
  };
}

export type ShortLinkTimer = ReturnType<typeof shortLinkTimer>;

/** What an operator watches of the redirect service, on its registry. */
export function redirectMetrics(
  registry: Registry,
  sizes: {
    queueDepth: () => number;
    /** VISIT_QUEUE_MAX: past it visits are dropped. */
    queueLimit: number;
    localCacheEntries: () => number;
    /** Undefined without a spool: no spool series then. */
    spoolBytes?: () => number;
    spoolLimitBytes?: number;
  },
) {
  const registers = [registry];
  const { spoolBytes, spoolLimitBytes } = sizes;
  if (spoolBytes !== undefined && spoolLimitBytes !== undefined) {
    new Gauge({
      name: 'visit_spool_bytes',
      help: 'Bytes of visits in the spool (VISIT_SPOOL_DIR): written, not all acknowledged by Kafka',
      registers,
      collect() {
        this.set(spoolBytes());
      },
    });
    new Gauge({
      name: 'visit_spool_limit_bytes',
      help: 'VISIT_SPOOL_MAX_BYTES: past it the oldest segments are deleted',
      registers,
    }).set(spoolLimitBytes);
  }
  new Gauge({
    name: 'visit_queue_depth',
    help: 'Visit events waiting to be published',
    registers,
    collect() {
      this.set(sizes.queueDepth());
    },
  });
  new Gauge({
    name: 'visit_queue_limit',
    help: 'VISIT_QUEUE_MAX: past it visits are dropped (and, with a spool, never written to it)',
    registers,
  }).set(sizes.queueLimit);
  new Gauge({
    name: 'redirect_local_cache_entries',
    help: "Codes held in this instance's memory",
    registers,
    collect() {
      this.set(sizes.localCacheEntries());
    },
  });
  const outcomes = new Counter({
    name: 'redirects_total',
    help: 'Short link requests by outcome',
    labelNames: ['outcome'] as const,
    registers,
  });
  startAtZero(outcomes, 'outcome', [...OUTCOMES]);
  // One child per outcome, made once: a redirect only increments.
  const byOutcome = Object.fromEntries(
    OUTCOMES.map((outcome) => [outcome, outcomes.labels(outcome)]),
  ) as Record<RedirectOutcome, Counter.Internal>;
  const dropped = new Counter({
    name: 'visit_events_dropped_total',
    help: 'Visit events lost: the queue was full (queue_full), or a stopping instance could get them to neither Kafka nor analytics (shutdown; with a spool, left there for a next container)',
    labelNames: ['reason'] as const,
    registers,
  });
  startAtZero(dropped, 'reason', ['queue_full', 'shutdown']);
  return {
    outcome: (outcome: RedirectOutcome) => byOutcome[outcome].inc(),
    spool: {
      evicted: new Counter({
        name: 'visit_spool_evicted_total',
        help: 'Visits whose spool segment was deleted at the size limit before Kafka had them (still queued in memory; a crash would lose them)',
        registers,
      }),
      errors: new Counter({
        name: 'visit_spool_write_errors_total',
        help: 'Spool writes that failed (a full or failing disk): those visits wait in memory only',
        registers,
      }),
    },
    queue: {
      published: new Counter({
        name: 'visit_events_published_total',
        help: 'Visit events published',
        registers,
      }),
      dropped: dropped.labels('queue_full'),
      droppedAtShutdown: dropped.labels('shutdown'),
      publishErrors: new Counter({
        name: 'visit_publish_errors_total',
        help: 'Failed attempts to publish a batch of visits',
        registers,
      }),
    },
  };
}
