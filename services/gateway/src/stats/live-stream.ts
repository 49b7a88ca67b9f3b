import type { ServerResponse } from 'node:http';
import type { LiveVisit } from '@shortener/contracts';
import type { LiveVisitFeed } from './live-visits';

/** A comment line every so often, so proxies and browsers keep an idle stream open. */
export const HEARTBEAT_MS = 15_000;
/** How soon a browser reconnects after the stream drops (a gateway restart, say). */
export const RECONNECT_MS = 2000;

export interface LiveStreamOptions {
  urlID: string;
  feed: LiveVisitFeed;
  /** Resolves false once the session the stream was opened with has ended. */
  sessionAlive: () => Promise<boolean>;
  heartbeatMs?: number;
  /** Aborted when the gateway stops: the stream ends, and the browser reconnects elsewhere. */
  stopping?: AbortSignal;
}

/**
 * Server-Sent Events of one link's stored visits: `event: visit` with one visit as JSON each,
 * a comment heartbeat, and the end of the stream when the session ends (checked at each
 * heartbeat) or the browser goes away.
 */
export function streamVisits(res: ServerResponse, options: LiveStreamOptions): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    // nginx and other proxies would otherwise hold the events back.
    'x-accel-buffering': 'no',
  });
  res.write(`retry: ${RECONNECT_MS}\n: live visits of ${options.urlID}\n\n`);
  const send = (visit: LiveVisit) => res.write(`event: visit\ndata: ${JSON.stringify(visit)}\n\n`);
  const unsubscribe = options.feed.subscribe(options.urlID, (batch) => {
    for (const visit of batch.visits) send(visit);
  });
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    options.stopping?.removeEventListener('abort', close);
    res.end();
  };
  const heartbeat = setInterval(() => {
    void options.sessionAlive().then(
      (alive) => {
        if (closed) return;
        if (!alive) {
          res.write('event: end\ndata: {"reason":"session ended"}\n\n');
          close();
          return;
        }
        res.write(': heartbeat\n\n');
      },
      // The auth service cannot say now: keep the stream, ask again at the next beat.
      () => (closed ? undefined : res.write(': heartbeat\n\n')),
    );
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  res.on('close', close);
  if (options.stopping?.aborted) close();
  options.stopping?.addEventListener('abort', close, { once: true });
}

/**
 * Whether a request comes from our own pages. EventSource cannot send X-Requested-With, so the
 * live stream takes this instead: a browser names a cross-site request in Sec-Fetch-Site, and
 * sends Origin with every EventSource request; either saying "another site" refuses it.
 */
export function sameOrigin(
  headers: { 'sec-fetch-site'?: string | string[]; origin?: string | string[] },
  publicOrigin: string,
): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = headers.origin;
  if (origin !== undefined && origin !== new URL(publicOrigin).origin) return false;
  return true;
}
