import type { IncomingMessage, ServerResponse } from 'node:http';
import { isShortCode } from '@shortener/contracts';
import {
  LinksUnavailableError,
  TOO_MANY_MISSES,
  type LinkResolver,
  type LiveLink,
} from './link-resolver';
import type { MissBudget } from './miss-budget';
import type { VisitQueue } from './visit-queue';

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

export interface RedirectDeps {
  resolver: LinkResolver;
  /** Lookups that found nothing, per client. */
  misses: MissBudget;
  queue: VisitQueue;
  clientIp: (req: IncomingMessage) => string;
  count: (outcome: 'redirected' | 'not_found' | 'unavailable' | 'too_many_misses') => void;
  onError: (error: unknown) => void;
}

/**
 * GET or HEAD /r/{code}: look up, redirect, queue the visit. The visit is queued after the
 * answer is written and nothing here waits for analytics; HEAD redirects without a visit.
 */
export function createRedirectHandler(deps: RedirectDeps) {
  const { resolver, misses, queue, count } = deps;

  /** `client`: the visitor's address when the caller already has it. */
  function redirect(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    link: LiveLink,
    client?: string,
  ): void {
    // A flat list prebuilt per link: no header object a request.
    res.writeHead(302, link.headers as string[]);
    res.end();
    count('redirected');
    if (req.method === 'GET') {
      // Written straight into the queue's buffer: no event object, no copy of a header.
      const headers = req.headers;
      queue.push(
        code,
        Date.now(),
        client ?? deps.clientIp(req),
        headers['user-agent'] ?? '',
        headers.referer || null,
      );
    }
  }

  function notFound(res: ServerResponse): void {
    count('not_found');
    res.writeHead(404, { ...PAGE_HEADERS, 'content-length': NOT_FOUND_PAGE.length });
    res.end(NOT_FOUND_PAGE);
  }

  function unavailable(res: ServerResponse): void {
    count('unavailable');
    res.writeHead(503, {
      ...PAGE_HEADERS,
      'retry-after': '1',
      'content-length': UNAVAILABLE_PAGE.length,
    });
    res.end(UNAVAILABLE_PAGE);
  }

  function tooManyMisses(res: ServerResponse, client: string): void {
    count('too_many_misses');
    res.writeHead(429, {
      ...PAGE_HEADERS,
      'retry-after': String(misses.retryAfterSeconds(client)),
      'content-length': TOO_MANY_MISSES_PAGE.length,
    });
    res.end(TOO_MANY_MISSES_PAGE);
  }

  return function handle(req: IncomingMessage, res: ServerResponse, code: string): void {
    // Malformed codes never reach the cache or the links service.
    if (!isShortCode(code)) return notFound(res);
    const now = Date.now();
    const known = resolver.peek(code, now);
    if (known !== undefined) {
      if (known && known.expiresAt > now) return redirect(req, res, code, known);
      return notFound(res);
    }
    // The client's miss budget is spent only by lookups that reach the links service.
    const client = deps.clientIp(req);
    resolver.resolve(code, misses.for(client)).then(
      (link) => {
        if (link === TOO_MANY_MISSES) return tooManyMisses(res, client);
        return link && link.expiresAt > Date.now()
          ? redirect(req, res, code, link, client)
          : notFound(res);
      },
      (error: unknown) => {
        if (!(error instanceof LinksUnavailableError)) deps.onError(error);
        unavailable(res);
      },
    );
  };
}
