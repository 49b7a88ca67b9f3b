import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import proxyAddr from 'proxy-addr';
import { Pool, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { compileTrustedProxies, REQUEST_ID_HEADER, requestIdFrom } from '@shortener/chassis';
import { MESSAGES } from '@shortener/contracts';

/**
 * The visitor's request headers passed on: what the redirect service reads of them (the visit's
 * User-Agent and Referer, services/redirect/src/redirect-handler.ts); the gateway adds the
 * client's address and the request id. Nothing else: not the visitor's cookies or credentials,
 * which the redirect service has no use for, nor any body framing (no body is forwarded), and
 * each header more is work for both processes.
 */
const PASSED_ON = ['user-agent', 'referer'] as const;

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

export interface RedirectFastPath {
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** Closes the kept-alive connections to the redirect service (at shutdown). */
  close(): Promise<void>;
}

/**
 * `/r/{code}` straight to the redirect service, before Express and Nest see the request: on
 * one machine the gateway stands where the Kubernetes Ingress does, which sends /r/ to the
 * redirect service directly. Kept-alive upstream connections (undici's Pool), no body (GET
 * and HEAD only), the client's address in X-Forwarded-For as TRUSTED_PROXIES resolves it
 * (proxy-addr, as Express does for the rest), the answer passed back as it is but for its
 * hop-by-hop headers; a redirect service that cannot be reached or says nothing for 10 s is
 * 502 `Server error`; a client that goes away cancels its upstream request.
 */
export function redirectFastPath(options: {
  target: string;
  trustedProxies: readonly string[];
  logger: Logger;
  /** Headers every answer carries unless the redirect service sets its own (security). */
  answerHeaders?: Readonly<Record<string, string>>;
  /** How long the redirect service may take to answer (and between body chunks). */
  timeoutMs?: number;
}): RedirectFastPath {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const trust = compileTrustedProxies(options.trustedProxies);
  // As many connections as the Agent before it allowed; one request at a time on each (no
  // pipelining: a slow lookup would hold up the redirects queued behind it).
  const pool = new Pool(new URL(options.target).origin, {
    connections: 256,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const defaults = Object.entries(options.answerHeaders ?? {}).map(
    ([name, value]) => [name.toLowerCase(), value] as const,
  );
  const defaultNames = new Set([...defaults.map(([name]) => name), REQUEST_ID_HEADER]);

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    const method = req.method;
    if (!url.startsWith('/r/') || (method !== 'GET' && method !== 'HEAD')) return false;
    const given = req.headers;
    const address = proxyAddr(req, trust);
    // One id in both services' logs, as for every request the gateway passes on.
    const requestId = requestIdFrom(given);
    const headers: Record<string, string> = {
      [REQUEST_ID_HEADER]: requestId,
      'x-forwarded-for':
        address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address,
    };
    for (const name of PASSED_ON) {
      const value = given[name];
      if (value !== undefined) headers[name] = value;
    }

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
    pool.dispatch({ path: url, method, headers }, handler);
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
