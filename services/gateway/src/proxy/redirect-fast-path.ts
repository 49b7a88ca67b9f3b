import { Agent, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { Logger } from 'pino';
import { compileTrustedProxies, REQUEST_ID_HEADER, requestIdFrom } from '@shortener/chassis';
import { MESSAGES } from '@shortener/contracts';

/** Headers a client never passes on: hop-by-hop ones, and what only the gateway may say. */
const DROPPED = /^(x-internal-|x-forwarded-|connection$|keep-alive$|proxy-|te$|trailer$|upgrade$)/;

const BAD_GATEWAY = JSON.stringify({ message: MESSAGES.serverError });

/**
 * `/r/{code}` straight to the redirect service, before Express and Nest see the request: on
 * one machine the gateway stands where the Kubernetes Ingress does, which sends /r/ to the
 * redirect service directly. Kept-alive upstream connections, no body (GET and HEAD only),
 * the client's address in X-Forwarded-For as TRUSTED_PROXIES resolves it (proxy-addr, as
 * Express does for the rest), the answer passed back as it is; an unreachable redirect
 * service is 502 `Server error`.
 */
export function redirectFastPath(options: {
  target: string;
  trustedProxies: readonly string[];
  logger: Logger;
  /** Headers every answer carries unless the redirect service sets its own (security). */
  answerHeaders?: Readonly<Record<string, string>>;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const target = new URL(options.target);
  const answerHeaders = options.answerHeaders ?? {};
  const trust = compileTrustedProxies(options.trustedProxies);
  const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  return (req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith('/r/') || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !DROPPED.test(name)) headers[name] = value;
    }
    // One id in both services' logs, as for every request the gateway passes on.
    const requestId = requestIdFrom(req.headers);
    headers[REQUEST_ID_HEADER] = requestId;
    const address = proxyAddr(req, trust);
    headers['x-forwarded-for'] =
      address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
    const upstream = request(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: url,
        headers,
        timeout: 10_000,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, {
          ...answerHeaders,
          [REQUEST_ID_HEADER]: requestId,
          ...answer.headers,
        });
        answer.pipe(res);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('no answer in 10 s')));
    upstream.on('error', (error) => {
      options.logger.warn({ err: error.message, upstream: 'redirect' }, 'proxy failed');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
      res.end(BAD_GATEWAY);
    });
    // The client went away before the answer was out: so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end();
    return true;
  };
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
