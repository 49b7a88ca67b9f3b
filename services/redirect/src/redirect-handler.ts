import type { IncomingMessage, ServerResponse } from 'node:http';
import { isShortCode, type VisitTrace } from '@shortener/contracts';
import {
  LinksUnavailableError,
  TOO_MANY_MISSES,
  type LinkResolver,
  type LiveLink,
} from './link-resolver';
import type { ShortLinkTimer } from './metrics';
import type { MissBudget } from './miss-budget';
import type { VisitQueue } from './visit-queue';
import { visitUtmOf } from './visit-utm';

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

function page(title: string, message: string): Buffer {
  return Buffer.from(
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${title}</title><style>body{margin:0;min-height:100vh;display:grid;` +
      `place-items:center;font-family:system-ui,sans-serif;background:#f5f7fb;color:#1f2937}` +
      `main{text-align:center;padding:2rem}a{color:#1d4ed8}</style></head><body><main>` +
      `<h1>${title}</h1><p>${message}</p><p><a href="/">Shorten a URL</a></p></main></body></html>`,
  );
}

// Fixed pages: nothing from the request is ever echoed into them.
const NOT_FOUND_PAGE = page('Link not found', 'This short link does not exist or has expired.');
const UNAVAILABLE_PAGE = page(
  'Try again in a moment',
  'This short link cannot be followed right now.',
);
const TOO_MANY_MISSES_PAGE = page(
  'Too many unknown links',
  'Too many unknown short links were asked for from your address. Try again in a minute.',
);

interface RedirectDeps {
  resolver: LinkResolver;
  /** Lookups that found nothing, per client. */
  misses: MissBudget;
  queue: VisitQueue;
  clientIp: (req: IncomingMessage) => string;
  count: (outcome: 'redirected' | 'not_found' | 'unavailable' | 'too_many_misses') => void;
  /** Each answer's duration, in the service's request histogram. */
  timer: ShortLinkTimer;
  onError: (error: unknown) => void;
  /**
   * Given only when tracing is on: the request's span, if sampled, which its visit carries to
   * Kafka. Off, a visit is queued as it always was: no call, no check per request.
   */
  traceOf?: () => VisitTrace | undefined;
}

/**
 * GET or HEAD /r/{code}: look up, queue the visit, redirect. Nothing here waits for
 * analytics (with a spool, a 302 waits for the end of its event-loop turn); HEAD redirects
 * without a visit.
 */
export function createRedirectHandler(deps: RedirectDeps) {
  const { resolver, misses, queue, count, timer } = deps;

  // With a spool, the 302s of an event-loop turn wait until their visits are written to it
  // (one write for all of them, when the turn's I/O is done): a process killed at any point
  // has then either not answered a visit or left it on disk.
  const heldAnswers: ServerResponse[] = [];
  const heldHeaders: string[][] = [];
  const heldSince: number[] = [];
  let answering = false;
  function answerHeld(): void {
    answering = false;
    queue.spoolNow();
    for (let i = 0; i < heldAnswers.length; i++) {
      const res = heldAnswers[i]!;
      res.writeHead(302, heldHeaders[i]);
      res.end();
      timer.answered(false, 302, heldSince[i]!);
    }
    heldAnswers.length = 0;
    heldHeaders.length = 0;
    heldSince.length = 0;
  }

  /** `client`: the visitor's address when the caller already has it. */
  function redirect(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    link: LiveLink,
    startedAt: number,
    client?: string,
  ): void {
    count('redirected');
    const isHead = req.method === 'HEAD';
    if (queue.spooling && !isHead) {
      queueOne(req, code, client);
      heldAnswers.push(res);
      heldHeaders.push(link.headers as string[]);
      heldSince.push(startedAt);
      if (!answering) {
        answering = true;
        setImmediate(answerHeld);
      }
      return;
    }
    // A flat list prebuilt per link: no header object a request.
    res.writeHead(302, link.headers as string[]);
    res.end();
    timer.answered(isHead, 302, startedAt);
    if (!isHead) queueOne(req, code, client);
  }

  function queueVisit(
    req: IncomingMessage,
    code: string,
    client: string | undefined,
    trace?: VisitTrace,
  ): void {
    // Written straight into the queue's buffer: no event object, no copy of a header.
    const headers = req.headers;
    queue.push(
      code,
      Date.now(),
      client ?? deps.clientIp(req),
      headers['user-agent'] ?? '',
      headers.referer || null,
      trace,
      visitUtmOf(req.url),
    );
  }
  // Chosen once: a visit is traced only when tracing is on.
  const { traceOf } = deps;
  const queueOne: (req: IncomingMessage, code: string, client: string | undefined) => void =
    traceOf === undefined
      ? queueVisit
      : (req, code, client) => queueVisit(req, code, client, traceOf());

  function notFound(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    count('not_found');
    res.writeHead(404, { ...PAGE_HEADERS, 'content-length': NOT_FOUND_PAGE.length });
    res.end(NOT_FOUND_PAGE);
    timer.answered(req.method === 'HEAD', 404, startedAt);
  }

  function unavailable(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    count('unavailable');
    res.writeHead(503, {
      ...PAGE_HEADERS,
      'retry-after': '1',
      'content-length': UNAVAILABLE_PAGE.length,
    });
    res.end(UNAVAILABLE_PAGE);
    timer.answered(req.method === 'HEAD', 503, startedAt);
  }

  function tooManyMisses(
    req: IncomingMessage,
    res: ServerResponse,
    client: string,
    startedAt: number,
  ): void {
    count('too_many_misses');
    res.writeHead(429, {
      ...PAGE_HEADERS,
      'retry-after': String(misses.retryAfterSeconds(client)),
      'content-length': TOO_MANY_MISSES_PAGE.length,
    });
    res.end(TOO_MANY_MISSES_PAGE);
    timer.answered(req.method === 'HEAD', 429, startedAt);
  }

  /** `startedAt`: performance.now() when the request reached the service. */
  return function handle(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    startedAt: number,
  ): void {
    // Malformed codes never reach the cache or the links service.
    if (!isShortCode(code)) return notFound(req, res, startedAt);
    const now = Date.now();
    const known = resolver.peek(code, now);
    if (known !== undefined) {
      if (known && known.expiresAt > now) return redirect(req, res, code, known, startedAt);
      return notFound(req, res, startedAt);
    }
    // The client's miss budget is spent only by lookups that reach the links service.
    const client = deps.clientIp(req);
    resolver.resolve(code, misses.for(client)).then(
      (link) => {
        if (link === TOO_MANY_MISSES) return tooManyMisses(req, res, client, startedAt);
        return link && link.expiresAt > Date.now()
          ? redirect(req, res, code, link, startedAt, client)
          : notFound(req, res, startedAt);
      },
      (error: unknown) => {
        if (!(error instanceof LinksUnavailableError)) deps.onError(error);
        unavailable(req, res, startedAt);
      },
    );
  };
}
