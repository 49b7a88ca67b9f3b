import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { opsApi } from '@shortener/contracts';
import { ConfigError } from './config';
import { dependencyMetric, throttledReadiness, type ReadinessCheck } from './readiness';

export interface OpsEndpoints {
  registry: Registry;
  checks: readonly ReadinessCheck[];
  isShuttingDown: () => boolean;
}

/** The variables every service reads for its ops endpoints (see env.opsPort, env.opsHost). */
export interface OpsConfig {
  HOST: string;
  /** Set: /readyz and /metrics answer on this port only, never on PORT. */
  OPS_PORT?: number | undefined;
  /** Where the ops port listens; the service's HOST when unset. */
  OPS_HOST?: string | undefined;
}

/** Headers a proxy adds: a request carrying one came from further away than its peer. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/**
 * Whether the request comes straight from this machine: its socket's peer is a loopback
 * address (127.0.0.0/8, ::1, or either written as IPv4-mapped IPv6) and it carries no
 * forwarding header, so no proxy on this machine passed it on from outside.
 */
export function isDirectLoopbackPeer(req: IncomingMessage): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const loopback = peer === '::1' || peer.startsWith('127.') || peer.startsWith('::ffff:127.');
  return loopback && FORWARDING_HEADERS.every((name) => req.headers[name] === undefined);
}

/**
 * Whether /readyz and /metrics are answered to this request on the service's own port:
 * only without OPS_PORT, and only to a direct loopback peer (the embedded host, a health
 * check inside the container, an operator on the machine). Everyone else gets 404.
 */
export function opsServedOnMainPort(req: IncomingMessage, config: OpsConfig): boolean {
  return config.OPS_PORT === undefined && isDirectLoopbackPeer(req);
}

export interface OpsRoutes {
  /**
   * For the service's own port: /healthz to anyone; /readyz and /metrics as
   * opsServedOnMainPort says. Returns false when it did not answer, so the caller goes on
   * with its own routes (and its own 404).
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Opens the ops port when OPS_PORT is set; resolves with its number, or undefined. */
  listen(): Promise<number | undefined>;
  /**
   * Resolves true once /metrics has been answered in full after this call, false after
   * `withinMs`: a stopping service that has just counted a loss waits for Prometheus to see it.
   */
  nextScrape(withinMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * /healthz, /readyz and /metrics (opsApi) for a service, the one implementation of them: on
 * its own port for loopback callers (the redirect's server calls `handle`, a Nest service's
 * ops handlers do), or on a separate ops port (a small node:http listener) when OPS_PORT is
 * set. /readyz is throttled: a flood of calls costs at most one round of checks a second.
 */
export function opsRoutes(
  service: string,
  ops: OpsEndpoints,
  config: OpsConfig,
  logger: Logger,
): OpsRoutes {
  const readiness = throttledReadiness(ops.checks, {
    onReport: dependencyMetric(ops.registry),
  });
  let server: Server | undefined;
  const scrapeWaiters = new Set<() => void>();

  const answer = (req: IncomingMessage, res: ServerResponse, everything: boolean): boolean => {
    const path = req.url?.split('?', 1)[0];
    if (path === opsApi.health.path) {
      sendJson(res, 200, { status: 'ok' });
      return true;
    }
    if (path !== opsApi.ready.path && path !== opsApi.metrics.path) return false;
    if (!everything && !opsServedOnMainPort(req, config)) return false;
    if (path === opsApi.ready.path) {
      void readiness(ops.isShuttingDown()).then((report) =>
        sendJson(res, report.ready ? 200 : 503, report),
      );
    } else {
      void ops.registry.metrics().then(
        (body) => {
          res.writeHead(200, { 'content-type': ops.registry.contentType });
          res.end(body);
          if (scrapeWaiters.size > 0) {
            res.once('finish', () => {
              for (const seen of scrapeWaiters) seen();
            });
          }
        },
        () => sendJson(res, 500, { message: 'metrics unavailable' }),
      );
    }
    return true;
  };

  return {
    handle: (req, res) => answer(req, res, false),
    async listen() {
      if (config.OPS_PORT === undefined) return undefined;
      const host = config.OPS_HOST ?? config.HOST;
      const listening = createServer((req, res) => {
        if (!answer(req, res, true)) sendJson(res, 404, { message: 'Not found' });
      });
      await new Promise<void>((resolve, reject) => {
        listening.once('error', (error: NodeJS.ErrnoException) =>
          reject(
            new ConfigError(service, [
              `OPS_PORT: cannot listen on ${host}:${config.OPS_PORT} (${error.code ?? error.message})`,
            ]),
          ),
        );
        listening.listen(config.OPS_PORT, host, () => resolve());
      });
      server = listening;
      const address = listening.address();
      const port = typeof address === 'object' && address ? address.port : config.OPS_PORT;
      logger.info({ opsPort: port }, `${service} serves /readyz and /metrics on port ${port}`);
      return port;
    },
    nextScrape(withinMs) {
      return new Promise<boolean>((resolve) => {
        const done = (seen: boolean) => {
          clearTimeout(timer);
          scrapeWaiters.delete(seenNow);
          resolve(seen);
        };
        const seenNow = () => done(true);
        const timer = setTimeout(() => done(false), withinMs);
        scrapeWaiters.add(seenNow);
      });
    },
    async close() {
      const listening = server;
      if (!listening) return;
      server = undefined;
      await new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      });
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}
