import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { checkReadiness, type ReadinessCheck } from './readiness';

export interface OpsEndpoints {
  registry: Registry;
  checks: readonly ReadinessCheck[];
  isShuttingDown: () => boolean;
}

/**
 * /healthz, /readyz and /metrics for a plain node:http server. Returns false for any other
 * path so the caller goes on with its own routes.
 */
export function handleOpsRequest(
  req: IncomingMessage,
  res: ServerResponse,
  ops: OpsEndpoints,
): boolean {
  const path = req.url?.split('?', 1)[0];
  if (path === '/healthz') {
    sendJson(res, 200, { status: 'ok' });
    return true;
  }
  if (path === '/readyz') {
    void checkReadiness(ops.checks, ops.isShuttingDown()).then((report) =>
      sendJson(res, report.ready ? 200 : 503, report),
    );
    return true;
  }
  if (path === '/metrics') {
    void ops.registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': ops.registry.contentType });
        res.end(body);
      },
      () => sendJson(res, 500, { message: 'metrics unavailable' }),
    );
    return true;
  }
  return false;
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
