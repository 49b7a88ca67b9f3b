import type { ServerResponse } from 'node:http';
import { LIVE_END_REASONS, LIVE_EVENTS, type LiveEndReason } from '@shortener/contracts';
import type { LiveVisitFeed } from './live-visits';

/** A comment line every so often, so proxies and browsers keep an idle stream open. */
const HEARTBEAT_MS = 15_000;
/** How soon a browser reconnects after the stream drops (a gateway restart, say). */
const RECONNECT_MS = 2000;

/** What became of a stream that fell behind: it caught up (and was told to refetch), or was cut. */
export type LagOutcome = 'refetch' | 'cut';

export interface LiveStreamOptions {
  urlID: string;
  feed: LiveVisitFeed;
  /** Resolves false once the session the stream was opened with has ended. */
  sessionAlive: () => Promise<boolean>;
  heartbeatMs?: number;
  /**
   * Aborted when the gateway stops: the stream ends (`end`, server stopping) and its
   * connection closes, and the browser reconnects elsewhere.
   */
  stopping?: AbortSignal;
  /** Called once the stream is over, however it ended. */
  onClose?: () => void;
  onLag?: (outcome: LagOutcome) => void;
}

export interface LiveStream {
  /** Ends the stream with an `end` event that tells the browser why and not to reconnect. */
  end(reason: LiveEndReason): void;
}

const event = (name: string, data: unknown): string =>
  `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * What one stream may hold that its client has not taken; past it visits are left out. At
 * least the socket's high-water mark, so a write past it has said false and drain will come.
 */
export const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * Server-Sent Events of one link's visits (`visit`, heartbeats, `end`). A slow client costs at
 * most STREAM_BUFFER_BYTES, then gets `refetch` once drained; one still behind a heartbeat
 * later is reset, which frees the kernel's buffers too (a close would keep them).
 */
export function streamVisits(res: ServerResponse, options: LiveStreamOptions): LiveStream {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    // nginx and other proxies would otherwise hold the events back.
    'x-accel-buffering': 'no',
  });
  let closed = false;
  /** Since when visits are being left out, until the socket drains. */
  let behindSince: number | null = null;
  const write = (chunk: string): void => {
    if (!closed) res.write(chunk);
  };
  res.on('drain', () => {
    if (behindSince === null) return;
    behindSince = null;
    options.onLag?.('refetch');
    write(event(LIVE_EVENTS.refetch, {}));
  });

  write(`retry: ${RECONNECT_MS}\n: live visits of ${options.urlID}\n\n`);
  const unsubscribe = options.feed.subscribe(options.urlID, (batch) => {
    for (const visit of batch.visits) {
      if (res.writableLength >= STREAM_BUFFER_BYTES) {
        behindSince ??= Date.now();
        return;
      }
      write(event(LIVE_EVENTS.visit, visit));
    }
  });

  const reset = (): void => {
    try {
      res.socket?.resetAndDestroy();
    } catch {
      // Not a TCP socket: closed the ordinary way.
    }
    res.destroy();
  };
  const close = ({ cut = false, stopping = false } = {}): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    options.stopping?.removeEventListener('abort', stop);
    if (cut || behindSince !== null) {
      reset();
    } else {
      const socket = res.socket;
      res.end();
      // Ended, but a client that does not read would hold the connection open for good; a
      // stopping gateway waits for it no longer than a second.
      const unread = setTimeout(reset, stopping ? Math.min(heartbeatMs, 1000) : heartbeatMs);
      unread.unref();
      res.once('finish', () => {
        clearTimeout(unread);
        // Kept alive, the idle connection would hold the closing server for its keep-alive
        // timeout.
        if (stopping) socket?.end();
      });
    }
    options.onClose?.();
  };
  const end = (reason: LiveEndReason, { stopping = false } = {}): void => {
    write(event(LIVE_EVENTS.end, { reason }));
    close({ stopping });
  };
  const stop = (): void => end(LIVE_END_REASONS.serverStopping, { stopping: true });
  const gone = (): void => close();

  const heartbeat = setInterval(() => {
    if (behindSince !== null) {
      if (Date.now() - behindSince < heartbeatMs) return;
      options.onLag?.('cut');
      close({ cut: true });
      return;
    }
    void options.sessionAlive().then(
      (alive) => (alive ? write(': heartbeat\n\n') : end(LIVE_END_REASONS.sessionEnded)),
      // The auth service cannot say now: keep the stream, ask again at the next beat.
      () => write(': heartbeat\n\n'),
    );
  }, heartbeatMs);
  heartbeat.unref();
  res.on('close', gone);
  if (options.stopping?.aborted) stop();
  options.stopping?.addEventListener('abort', stop, { once: true });
  return { end: (reason) => end(reason) };
}
