import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { hasBody, REQUEST_ID_HEADER, requestIdFrom, trustedProxies } from '@shortener/chassis';
import { MESSAGES, SHORT_LINK_PREFIX } from '@shortener/contracts';
import { resolveClientAddress } from '../edge/client-address';

/**
 * The visitor's request headers passed on: what the redirect service reads of them (the visit's
 * User-Agent and Referer, services/redirect/src/redirect-handler.ts); the gateway adds the
 * client's address and the request id. Nothing else: not the visitor's cookies or credentials,
 * which the redirect service has no use for, and each header more is work for both processes.
 * A POST (a password link's form) also has its body and its framing passed on.
 */
const PASSED_ON = ['user-agent', 'referer'] as const;
const FORM_PASSED_ON = ['content-type', 'content-length'] as const;

/** Answer headers about the gateway's link to the redirect service, not the client's. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

const BAD_GATEWAY = JSON.stringify({ message: MESSAGES.serverError });
const BODY_REFUSED = JSON.stringify({ message: MESSAGES.noBodyOnShortLink });

/** The short link's prefix (`/r/`, shortLinkApi's) as the router matches it: in any case. */
const PREFIX = SHORT_LINK_PREFIX.toLowerCase();

/**
 * A request target as a path (`/…`, query included): the origin form as it is, the absolute
 * form `scheme://host/…` read for its path as Express's router reads it; undefined for any
 * other (`*`, an authority).
 */
export function originForm(target: string): string | undefined {
  if (target.charCodeAt(0) === 0x2f /* / */) return target;
  const scheme = target.indexOf('://');
  if (scheme <= 0) return undefined;
  // The authority ends at the first of / ? #: the path starts only at a slash.
  const end = target.slice(scheme + 3).search(/[/?#]/);
  if (end === -1 || target[scheme + 3 + end] !== '/') return undefined;
  return target.slice(scheme + 3 + end);
}

/**
 * The redirect service's path for a request target Express's router would send to /r/, or
 * undefined: `/r/…` in any case (the router ignores case) and the absolute form
 * `scheme://host/r/…` (read for its path, as the router reads it), written `/r/…`. Every such
 * request takes the fast path, so there is one way to the redirect service and it never
 * carries what the fast path leaves out (cookies, credentials).
 */
export function redirectPath(target: string): string | undefined {
  const path = originForm(target);
  if (path === undefined) return undefined;
  if (path.startsWith(SHORT_LINK_PREFIX)) return path;
  if (path.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return undefined;
  return SHORT_LINK_PREFIX + path.slice(PREFIX.length);
}

export interface RedirectFastPath {
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** Closes the kept-alive connections to the redirect service (at shutdown). */
  close(): Promise<void>;
}

/**
 * `/r/{code}` straight to the redirect service, before Express and Nest see the request: on
 * one machine the gateway stands where the Kubernetes Ingress does, which sends /r/ to the
 * redirect service directly. Kept-alive upstream connections (undici's Pool), on the redirect
 * service's Unix socket when `socketPath` names it (there only this user can name a visitor's
 * address), no body (GET and HEAD only), the client's address in X-Forwarded-For as
 * resolveClientAddress says (as for the rest), the answer passed back as it is but for its
 * hop-by-hop headers; a redirect service that cannot be reached or says nothing for 10 s is
 * 502 `Server error`; a client that goes away cancels its upstream request.
 */
export function redirectFastPath(options: {
  target: string;
  /** The redirect service's UNIX_SOCKET: set, `target` is reached there. */
  socketPath?: string | undefined;
  trustedProxies: readonly string[];
  logger: Logger;
  /** Headers every answer carries unless the redirect service sets its own (security). */
  answerHeaders?: Readonly<Record<string, string>>;
  /** How long the redirect service may take to answer (and between body chunks). */
  timeoutMs?: number;
  /**
   * The branded domain a request's Host names, if any (the chassis' brandedHostOf): its every
   * request goes to the redirect service as it came, path and Host, as the nginx edge's
   * default server sends it. None: every host is the product's own.
   */
  brandedHost?: (host: string | undefined) => string | undefined;
}): RedirectFastPath {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const trusted = trustedProxies(options.trustedProxies);
  // As many connections as the Agent before it allowed; one request at a time on each (no
  // pipelining: a slow lookup would hold up the redirects queued behind it).
  const pool = new Pool(new URL(options.target).origin, {
    ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
    connections: 256,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const defaults = Object.entries(options.answerHeaders ?? {}).map(
    ([name, value]) => [name.toLowerCase(), value] as const,
  );
  const defaultNames = new Set([...defaults.map(([name]) => name), REQUEST_ID_HEADER]);

  const brandedHost = options.brandedHost ?? (() => undefined);

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const method = req.method ?? 'GET';
    const given = req.headers;
    const branded = brandedHost(given.host) !== undefined;
    let url: string | undefined;
    if (branded) {
      url = originForm(req.url ?? '');
    } else if (method === 'GET' || method === 'HEAD' || method === 'POST') {
      url = redirectPath(req.url ?? '');
    }
    if (url === undefined) return false;
    // Refused as the edge and the redirect service refuse it: a body is not a visit's (only a
    // password form's POST has one, which the redirect service reads and bounds).
    const form = method === 'POST';
    if (!form && hasBody(req)) {
      res.writeHead(400, {
        ...Object.fromEntries(defaults),
        'content-type': 'application/json; charset=utf-8',
        connection: 'close',
      });
      res.end(BODY_REFUSED);
      return true;
    }
    // One id in both services' logs, as for every request the gateway passes on.
    const requestId = requestIdFrom(given);
    const headers: Record<string, string> = {
      [REQUEST_ID_HEADER]: requestId,
      'x-forwarded-for': resolveClientAddress(req, trusted),
    };
    for (const name of PASSED_ON) {
      const value = given[name];
      if (value !== undefined) headers[name] = value;
    }
    if (form) {
      for (const name of FORM_PASSED_ON) {
        const value = given[name];
        if (value !== undefined) headers[name] = value;
      }
    }
    // The domain the redirect service looks the link up on.
    if (branded) headers['host'] = given.host!;

    let abort: ((error?: Error) => void) | undefined;
    let gone = false;
    let resume: () => void = () => undefined;
    const handler: Dispatcher.DispatchHandlers = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (gone) abortRequest(new Error('the client went away'));
      },
      onHeaders(status, raw, resumeReading) {
        if (status < 200) return true; // informational: the final answer follows
        resume = resumeReading;
        const answer: string[] = [];
        let own: Set<string> | undefined;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = raw[i]!.toString('latin1').toLowerCase();
          if (HOP_BY_HOP.has(name)) continue;
          if (defaultNames.has(name)) (own ??= new Set()).add(name);
          answer.push(name, raw[i + 1]!.toString('latin1'));
        }
        for (const [name, value] of defaults) if (!own?.has(name)) answer.push(name, value);
        if (!own?.has(REQUEST_ID_HEADER)) answer.push(REQUEST_ID_HEADER, requestId);
        res.writeHead(status, answer);
        return true;
      },
      onData(chunk) {
        if (res.write(chunk)) return true;
        res.once('drain', resume);
        return false;
      },
      onComplete() {
        res.end();
      },
      onError(error) {
        if (gone) return; // nobody left to answer
        options.logger.warn({ err: error.message, upstream: 'redirect' }, 'proxy failed');
        if (res.headersSent) {
          res.destroy();
          return;
        }
        res.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
        res.end(BAD_GATEWAY);
      },
    };
    // A branded host's request keeps its method, whatever it is (the redirect answers it).
    pool.dispatch(
      {
        path: url,
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(form ? { body: req } : {}),
      },
      handler,
    );
    // The client went away before the answer was out: so does the upstream request.
    res.on('close', () => {
      if (res.writableFinished) return;
      gone = true;
      abort?.(new Error('the client went away'));
    });
    return true;
  };
  return Object.assign(handle, { close: () => pool.close() });
}

/**
 * Puts a handler in front of whatever the server answers requests with (Express, here): it
 * takes the requests it returns true for, the rest go on as before.
 */
export function inFront(
  server: Server,
  handler: (req: IncomingMessage, res: ServerResponse) => boolean,
): void {
  const listeners = server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (handler(req, res)) return;
    for (const listener of listeners) listener.call(server, req, res);
  });
}
