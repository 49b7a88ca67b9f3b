import type { ServerResponse } from 'node:http';
import { HttpException, HttpStatus } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { LIVE_END_REASONS } from '@shortener/contracts';
import { startAtZero, type ServiceMetrics } from '@shortener/chassis';
import { streamVisits, type LagOutcome, type LiveStream } from './live-stream';
import type { LiveVisitFeed } from './live-visits';

interface LiveStreamsOptions {
  feed: LiveVisitFeed;
  /** Streams one user may hold on this instance. */
  perUser: number;
  /** Streams this instance holds in all. */
  perInstance: number;
  heartbeatMs: number;
  stopping: AbortSignal;
  metrics: ServiceMetrics;
}

interface OpenStream {
  userId: string;
  urlID: string;
  /** Throws (404, say) unless the user may watch the link; the stream's place is held meanwhile. */
  allowed: () => Promise<unknown>;
  sessionAlive: () => Promise<boolean>;
}

export const LIVE_STREAM_MESSAGES = {
  user: 'Too many live streams: close another stats page first.',
  instance: 'Too many live streams on this server: try again in a moment.',
};

/**
 * This instance's live streams, capped per user and in all (429 past either: each holds
 * buffers), kept by link so a deleted link's streams end wherever it was deleted.
 */
export class LiveStreams {
  private readonly ofUser = new Map<string, number>();
  private readonly ofLink = new Map<string, Set<{ stream?: LiveStream }>>();
  private count = 0;
  private readonly gauge: Gauge;
  private readonly refused: Counter<'limit'>;
  private readonly lagged: Counter<'outcome'>;

  constructor(private readonly options: LiveStreamsOptions) {
    const registers = [options.metrics.registry];
    this.gauge = new Gauge({
      name: 'gateway_live_streams',
      help: 'Live visit streams open on this instance',
      registers,
    });
    this.refused = new Counter({
      name: 'gateway_live_streams_refused_total',
      help: 'Live streams refused with 429, by the limit reached (user, instance)',
      labelNames: ['limit'] as const,
      registers,
    });
    this.lagged = new Counter({
      name: 'gateway_live_stream_lags_total',
      help: 'Live streams whose client fell behind, by outcome: told to refetch once it caught up, or cut after a heartbeat without reading',
      labelNames: ['outcome'] as const,
      registers,
    });
    startAtZero(this.refused, 'limit', ['user', 'instance']);
    startAtZero(this.lagged, 'outcome', ['refetch', 'cut']);
    options.feed.onLinkRemoved?.((urlID) => this.linkRemoved(urlID));
  }

  /**
   * Streams the link's visits to `res`: a place is taken first (429 past a limit), held
   * while `allowed` checks the link, and given back when the stream is over.
   */
  async open(res: ServerResponse, request: OpenStream): Promise<void> {
    const { userId, urlID } = request;
    const limit =
      this.count >= this.options.perInstance
        ? 'instance'
        : (this.ofUser.get(userId) ?? 0) >= this.options.perUser
          ? 'user'
          : null;
    if (limit) {
      this.refused.inc({ limit });
      throw new HttpException(
        { message: LIVE_STREAM_MESSAGES[limit] },
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    this.take(userId, 1);
    try {
      await request.allowed();
    } catch (error) {
      this.take(userId, -1);
      throw error;
    }
    const watching = this.ofLink.get(urlID) ?? new Set();
    this.ofLink.set(urlID, watching);
    // In the set before the stream starts: it may be over at once (the gateway stopping).
    const place: { stream?: LiveStream } = {};
    watching.add(place);
    place.stream = streamVisits(res, {
      urlID,
      feed: this.options.feed,
      sessionAlive: request.sessionAlive,
      heartbeatMs: this.options.heartbeatMs,
      stopping: this.options.stopping,
      onLag: (outcome: LagOutcome) => this.lagged.inc({ outcome }),
      onClose: () => {
        this.take(userId, -1);
        watching.delete(place);
        if (watching.size === 0 && this.ofLink.get(urlID) === watching) this.ofLink.delete(urlID);
      },
    });
  }

  /** Ends every stream of a link on this instance: it was deleted. */
  linkRemoved(urlID: string): void {
    for (const place of [...(this.ofLink.get(urlID) ?? [])]) {
      place.stream?.end(LIVE_END_REASONS.linkDeleted);
    }
  }

  private take(userId: string, places: 1 | -1): void {
    this.count += places;
    this.gauge.set(this.count);
    const held = (this.ofUser.get(userId) ?? 0) + places;
    if (held > 0) this.ofUser.set(userId, held);
    else this.ofUser.delete(userId);
  }
}
