import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger } from 'pino';
import { MESSAGES } from '@shortener/contracts';
import { REQUEST_ID_HEADER } from '@shortener/chassis';
import { DEFAULT_BODY_LIMIT, readRequestBody } from '@shortener/chassis-nest';
import { clientAddress } from '../edge/client-address';

type ProxiedRequest = Request & { id?: unknown };

/**
 * Forwards a request to a service unchanged (path, query, cookies, the body as a stream;
 * its answer and Set-Cookie come back as they are), with the client's address in
 * X-Forwarded-For (the services trust it from us only) and the request id, so both logs
 * carry one id. A body declared larger than a service reads is refused here (413); the
 * service limits a chunked one itself.
 */
export function upstreamProxy(name: string, target: string, logger: Logger): RequestHandler {
  const proxy = createProxyMiddleware<Request, Response>({
    target,
    changeOrigin: false,
    xfwd: false,
    proxyTimeout: 10_000,
    // Mounted under a path or not, the service sees the path the browser asked for.
    pathRewrite: (_path, req) => req.originalUrl,
    // Our own handlers below replace the default plugins' plain-text error answers.
    ejectPlugins: true,
    plugins: [
      (server) => {
        server.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) => {
          const request = req as ProxiedRequest;
          proxyReq.setHeader('x-forwarded-for', clientAddress(request));
          proxyReq.setHeader('x-forwarded-proto', request.protocol);
          if (request.headers.host) proxyReq.setHeader('x-forwarded-host', request.headers.host);
          if (typeof request.id === 'string') proxyReq.setHeader(REQUEST_ID_HEADER, request.id);
        });
        server.on('error', (error: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
          const request = req as ProxiedRequest;
          logger.warn({ err: error.message, reqId: request.id, upstream: name }, 'proxy failed');
          if (!('writeHead' in res)) {
            res.destroy();
            return;
          }
          if (res.headersSent) {
            res.end();
            return;
          }
          res.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ message: MESSAGES.serverError }));
        });
      },
    ],
  });
  const declaredBody = readRequestBody({ kinds: [], limit: DEFAULT_BODY_LIMIT, logger });
  return (req, res, next) => declaredBody(req, res, () => void proxy(req, res, next));
}
