import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Backoff } from '@shortener/chassis';
import type { VisitEvent } from '@shortener/contracts';

/** Where queued visits go: Kafka when distributed, an in-process bus when embedded. */
export interface VisitPublisher {
  publish(events: VisitEvent[]): Promise<void>;
}

export interface VisitQueueStats {
  published: number;
  dropped: number;
  publishErrors: number;
}

export interface VisitQueueOptions {
  maxSize: number;
  batchMax: number;
  flushIntervalMs: number;
  logger: Logger;
  /** Told of every change to the counters, for metrics. */
  onCount?: (counter: keyof VisitQueueStats, by: number) => void;
}

/**
 * Visits wait here, in memory and bounded, and leave in batches; a redirect only pushes and
 * never waits. When publishing fails the batch goes back to the front and is retried with
 * back-off; when the queue is full new visits are dropped and counted, never blocking.
 */
export class VisitQueue {
  private queue: VisitEvent[] = [];
  private readonly stats: VisitQueueStats = { published: 0, dropped: 0, publishErrors: 0 };
  private stopping = false;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly publisher: VisitPublisher,
    private readonly options: VisitQueueOptions,
  ) {
    this.loop = this.run();
  }

  push(event: VisitEvent): void {
    if (this.queue.length >= this.options.maxSize) {
      this.count('dropped', 1);
      return;
    }
    this.queue.push(event);
    if (this.queue.length >= this.options.batchMax) this.wake?.();
  }

  get depth(): number {
    return this.queue.length;
  }

  get counters(): Readonly<VisitQueueStats> {
    return this.stats;
  }

  /** Publishes everything queued, then stops; resolves when the queue is empty. */
  async drain(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ initialMs: 100, maxMs: 2000 });
    let retryInMs = 0;
    for (;;) {
      if (this.queue.length === 0) {
        if (this.stopping) return;
        await this.pause(this.options.flushIntervalMs);
        continue;
      }
      if (retryInMs > 0) await this.pause(retryInMs);
      else if (!this.stopping && this.queue.length < this.options.batchMax) {
        // Let a batch gather: one send of many visits costs about as much as one of a few.
        await this.pause(this.options.flushIntervalMs);
      }
      const batch = this.take();
      try {
        await this.publisher.publish(batch);
        this.count('published', batch.length);
        retryInMs = 0;
        backoff.reset();
      } catch (error) {
        this.count('publishErrors', 1);
        this.queue = batch.concat(this.queue);
        retryInMs = backoff.next();
        this.options.logger.warn(
          { err: (error as Error).message, queued: this.queue.length, retryInMs },
          'visits not published yet',
        );
      }
    }
  }

  private count(counter: keyof VisitQueueStats, by: number): void {
    this.stats[counter] += by;
    this.options.onCount?.(counter, by);
  }

  private take(): VisitEvent[] {
    if (this.queue.length <= this.options.batchMax) {
      const all = this.queue;
      this.queue = [];
      return all;
    }
    return this.queue.splice(0, this.options.batchMax);
  }

  /** Sleeps, unless woken early by a full batch or by drain(). */
  private async pause(ms: number): Promise<void> {
    const controller = new AbortController();
    this.wake = () => controller.abort();
    await sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);
    this.wake = undefined;
  }
}
