import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientKey } from '@shortener/chassis';
import { isShortCode, type VisitTrace } from '@shortener/contracts';
import { brandedKey, verifyLinkPassword, type LinkCounters } from '@shortener/link-cache';
import {
  LinksUnavailableError,
  TOO_MANY_MISSES,
  type LinkResolver,
  type LiveLink,
} from './link-resolver';
import {
  chosenDestination,
  headersWithQuery,
  type Destination,
  type LiveRules,
  type VisitorLookups,
} from './link-rules';
import type { RedirectOutcome, ShortLinkTimer } from './metrics';
import type { MissBudget } from './miss-budget';
import {
  page,
  PAGE_HEADERS,
  PASSWORD_BODY_MAX_BYTES,
  PASSWORD_PAGE,
  readPassword,
  WRONG_PASSWORD_PAGE,
} from './password-page';
import type { VisitQueue } from './visit-queue';
import { visitUtmOf } from './visit-utm';

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
const TOO_MANY_TRIES_PAGE = page(
  'Too many wrong passwords',
  'Too many wrong passwords were tried for this link from your address. Try again later.',
);
const TOO_LARGE_PAGE = page('Too large', 'The form sent was too large.');
const NOT_ALLOWED_PAGE = page('Not allowed', 'This short link cannot be posted to.');

interface RedirectDeps {
  resolver: LinkResolver;
  /** Lookups that found nothing, per client. */
  misses: MissBudget;
  queue: VisitQueue;
  clientIp: (req: IncomingMessage) => string;
  count: (outcome: RedirectOutcome) => void;
  /** Each answer's duration, in the service's request histogram. */
  timer: ShortLinkTimer;
  onError: (error: unknown) => void;
  /**
   * Given only when tracing is on: the request's span, if sampled, which its visit carries to
   * Kafka. Off, a visit is queued as it always was: no call, no check per request.
   */
  traceOf?: () => VisitTrace | undefined;
  /** Capped links' visits and wrong password tries (Redis, or memory in the embedded mode). */
  counters: LinkCounters;
  /** The User-Agent parser and the country database, for links with device or geo rules. */
  lookups: VisitorLookups;
  /** Wrong passwords a client may try per link within `windowMs` of its first. */
  passwordTries: { limit: number; windowMs: number };
}

/**
 * GET or HEAD /r/{code} or a branded host's /{slug}: look up, queue the visit, redirect.
 * Nothing here waits for analytics (with a spool, a 302 waits for the end of its event-loop
 * turn); HEAD redirects without a visit. A link with rules is decided from its entry: its
 * password (a form, POSTed back), its cap, then the visitor's device and country.
 */
export function createRedirectHandler(deps: RedirectDeps) {
  const { resolver, misses, queue, count, timer, counters, lookups, passwordTries } = deps;

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

  /** `code`: the link's urlID; `client`: the visitor's address when the caller already has it. */
  function redirect(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    headers: readonly string[],
    startedAt: number,
    client?: string,
  ): void {
    count('redirected');
    const isHead = req.method === 'HEAD';
    if (queue.spooling && !isHead) {
      queueOne(req, code, client);
      heldAnswers.push(res);
      heldHeaders.push(headers as string[]);
      heldSince.push(startedAt);
      if (!answering) {
        answering = true;
        setImmediate(answerHeld);
      }
      return;
    }
    // A flat list prebuilt per link: no header object a request.
    res.writeHead(302, headers as string[]);
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

  /** A page answered to a GET or HEAD (a POST's is timed by its method). */
  function answerPage(
    req: IncomingMessage,
    res: ServerResponse,
    status: 200 | 403 | 405 | 413 | 429,
    body: Buffer,
    startedAt: number,
    extra: Record<string, string> = {},
  ): void {
    const isHead = req.method === 'HEAD';
    res.writeHead(status, { ...PAGE_HEADERS, ...extra, 'content-length': body.length });
    res.end(isHead ? undefined : body);
    if (req.method === 'POST' || status === 403 || status === 405 || status === 413) {
      timer.refused(req.method ?? '', status, startedAt);
    } else timer.answered(isHead, status, startedAt);
  }

  /**
   * A found link, its rules applied. `branded`: asked for on a branded host (a domain link's
   * entry, which carries its urlId, never answers on the main origin's /r/).
   */
  function follow(
    req: IncomingMessage,
    res: ServerResponse,
    key: string,
    link: LiveLink,
    startedAt: number,
    query: string | undefined,
    branded: boolean,
    client?: string,
  ): void {
    if (!branded && link.urlId !== undefined) return notFound(req, res, startedAt);
    const { rules } = link;
    const code = link.urlId ?? key;
    if (
      rules === undefined ||
      (rules.passwordHash === undefined && rules.maxVisits === undefined)
    ) {
      if (req.method === 'POST') return notAllowed(req, res, startedAt);
      const target = rules === undefined ? link : destinationFor(req, link, rules, client);
      return redirect(req, res, code, headersWithQuery(target, query), startedAt, client);
    }
    guarded(req, res, code, link, rules, startedAt, query, client).catch((error: unknown) => {
      deps.onError(error);
      unavailable(req, res, startedAt);
    });
  }

  function destinationFor(
    req: IncomingMessage,
    link: LiveLink,
    rules: LiveRules,
    client: string | undefined,
  ): Destination {
    const address = () => client ?? deps.clientIp(req);
    return chosenDestination(link, rules, req.headers['user-agent'], address, lookups);
  }

  /** A link with a password or a cap: password first, then the cap, then the destination. */
  async function guarded(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    link: LiveLink,
    rules: LiveRules,
    startedAt: number,
    query: string | undefined,
    client: string | undefined,
  ): Promise<void> {
    if (rules.passwordHash !== undefined) {
      if (req.method !== 'POST') {
        count('password_asked');
        return answerPage(req, res, 200, PASSWORD_PAGE, startedAt);
      }
      const passed = await passwordPassed(req, res, code, rules.passwordHash, startedAt, client);
      if (!passed) return;
    } else if (req.method === 'POST') return notAllowed(req, res, startedAt);
    if (rules.maxVisits !== undefined) {
      // Past the cap the link is answered as an expired one, and nothing is counted: HEAD
      // only reads the count, GET takes one.
      const isHead = req.method === 'HEAD';
      const visits = isHead
        ? (await counters.visits(code)) + 1
        : await counters.countVisit(code, link.expiresAt);
      if (visits > rules.maxVisits) return notFound(req, res, startedAt);
    }
    const target = destinationFor(req, link, rules, client);
    redirect(req, res, code, headersWithQuery(target, query), startedAt, client);
  }

  /**
   * Reads a posted password (a body past PASSWORD_BODY_MAX_BYTES refused unread) and checks
   * it, wrong tries limited per link and client; false when it answered the request itself.
   */
  async function passwordPassed(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    hash: string,
    startedAt: number,
    client: string | undefined,
  ): Promise<boolean> {
    const declared = Number(req.headers['content-length'] ?? 0);
    const password = declared > PASSWORD_BODY_MAX_BYTES ? null : await readPassword(req);
    if (password === null) {
      answerPage(req, res, 413, TOO_LARGE_PAGE, startedAt, { connection: 'close' });
      return false;
    }
    const address = clientKey(client ?? deps.clientIp(req));
    const { limit, windowMs } = passwordTries;
    const taken = await counters.takeTry(code, address, limit, windowMs);
    if (!taken.allowed) {
      count('too_many_tries');
      const retryAfter = String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000)));
      answerPage(req, res, 429, TOO_MANY_TRIES_PAGE, startedAt, { 'retry-after': retryAfter });
      return false;
    }
    if (!(await verifyLinkPassword(password, hash))) {
      count('password_wrong');
      answerPage(req, res, 403, WRONG_PASSWORD_PAGE, startedAt);
      return false;
    }
    // Only wrong tries are limited.
    await counters.refundTry(code, address);
    return true;
  }

  /** A POST to a link without a password: its body is never read, so the connection closes. */
  function notAllowed(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    answerPage(req, res, 405, NOT_ALLOWED_PAGE, startedAt, {
      allow: 'GET, HEAD',
      connection: 'close',
    });
  }

  /**
   * `code`: the code on the main origin's /r/, or the slug on a branded `host` (its link kept
   * under brandedKey); `query`: the request's query string without its "?", undefined for
   * none; `startedAt`: performance.now() when the request reached the service.
   */
  return function handle(
    req: IncomingMessage,
    res: ServerResponse,
    code: string,
    startedAt: number,
    query?: string,
    host?: string,
  ): void {
    // Malformed codes never reach the cache or the links service.
    if (!isShortCode(code)) return notFound(req, res, startedAt);
    const branded = host !== undefined;
    const key = branded ? brandedKey(host, code) : code;
    const now = Date.now();
    const known = resolver.peek(key, now);
    if (known !== undefined) {
      if (known && known.expiresAt > now) {
        return follow(req, res, key, known, startedAt, query, branded);
      }
      return notFound(req, res, startedAt);
    }
    // The client's miss budget is spent only by lookups that reach the links service.
    const client = deps.clientIp(req);
    resolver.resolve(key, misses.for(client)).then(
      (link) => {
        if (link === TOO_MANY_MISSES) return tooManyMisses(req, res, client, startedAt);
        return link && link.expiresAt > Date.now()
          ? follow(req, res, key, link, startedAt, query, branded, client)
          : notFound(req, res, startedAt);
      },
      (error: unknown) => {
        if (!(error instanceof LinksUnavailableError)) deps.onError(error);
        unavailable(req, res, startedAt);
      },
    );
  };
}
