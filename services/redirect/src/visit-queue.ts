import { randomFillSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Backoff } from '@shortener/chassis';
import {
  VISIT_ID_BYTES,
  visitBytesBound,
  writeVisitFields,
  type EncodedVisits,
} from '@shortener/contracts';

/**
 * Where queued visits go: Kafka when distributed, an in-process bus when embedded. A batch is
 * one or more runs of encoded visits, in the order they were queued.
 */
export interface VisitPublisher {
  publish(batch: readonly EncodedVisits[]): Promise<void>;
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

/** Visits are written into buffers of this size; a full one is set aside as it is. */
const CHUNK_BYTES = 64 * 1024;
/** Kept within what the schema lets through; longer ones are cut (rare: a copy then). */
const MAX_USER_AGENT = 1024;
const MAX_REFERRER = 2048;

/**
 * Time-ordered version-7 UUIDs (RFC 9562): the visit's time in milliseconds, then 74 random
 * bits from a pool filled 256 ids at once. Visits are stored keyed by id, and ids that follow
 * time grow the primary key at one end instead of anywhere in it: about half of what
 * PostgreSQL spent storing a visit went on random ids (docs/reliability.md).
 */
class VisitIds {
  private readonly pool = Buffer.allocUnsafe(VISIT_ID_BYTES * 256);
  private next = this.pool.length;

  write(buffer: Buffer, at: number, timestamp: number): void {
    if (this.next === this.pool.length) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    this.pool.copy(buffer, at, this.next, this.next + VISIT_ID_BYTES);
    this.next += VISIT_ID_BYTES;
    buffer.writeUIntBE(timestamp, at, 6);
    buffer[at + 6] = (buffer[at + 6]! & 0x0f) | 0x70; // version 7
    buffer[at + 8] = (buffer[at + 8]! & 0x3f) | 0x80; // RFC 9562 variant
  }
}

/**
 * Visits wait here, in memory and bounded, and leave in batches; a redirect only pushes and
 * never waits. A visit is written once, as it will travel (the visit-record event layout of
 * @shortener/contracts), into a buffer, so a queued visit is bytes, not objects the garbage
 * collector must carry from one generation to the next. When publishing fails the batch goes
 * back to the front and is retried with back-off; when the queue is full new visits are
 * dropped and counted, never blocking.
 */
export class VisitQueue {
  /** Runs of visits set aside, oldest first, and how many visits they hold. */
  private sealed: EncodedVisits[] = [];
  private sealedCount = 0;
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private chunkEnd = 0;
  private chunkCount = 0;
  private readonly ids = new VisitIds();
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

  /** Queues a visit with a new id; `timestamp` in whole milliseconds since the epoch. */
  push(
    urlID: string,
    timestamp: number,
    ip: string,
    userAgent: string,
    referrer: string | null,
  ): void {
    if (this.depth >= this.options.maxSize) {
      this.count('dropped', 1);
      return;
    }
    const agent =
      userAgent.length > MAX_USER_AGENT ? userAgent.slice(0, MAX_USER_AGENT) : userAgent;
    const from =
      referrer !== null && referrer.length > MAX_REFERRER
        ? referrer.slice(0, MAX_REFERRER)
        : referrer;
    if (this.chunkEnd + visitBytesBound(urlID, ip, agent, from) > CHUNK_BYTES) this.setAside();
    this.ids.write(this.chunk, this.chunkEnd, timestamp);
    this.chunkEnd = writeVisitFields(
      this.chunk,
      this.chunkEnd + VISIT_ID_BYTES,
      timestamp,
      urlID,
      ip,
      agent,
      from,
    );
    this.chunkCount++;
    // A run never holds more than a batch.
    if (this.chunkCount >= this.options.batchMax) this.setAside();
    if (this.depth >= this.options.batchMax) this.wake?.();
  }

  get depth(): number {
    return this.sealedCount + this.chunkCount;
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
      if (this.depth === 0) {
        if (this.stopping) return;
        await this.pause(this.options.flushIntervalMs);
        continue;
      }
      if (retryInMs > 0) await this.pause(retryInMs);
      else if (!this.stopping && this.depth < this.options.batchMax) {
        // Let a batch gather: one send of many visits costs about as much as one of a few.
        await this.pause(this.options.flushIntervalMs);
      }
      const batch = this.take();
      const visits = batch.reduce((sum, run) => sum + run.count, 0);
      try {
        await this.publisher.publish(batch);
        this.count('published', visits);
        retryInMs = 0;
        backoff.reset();
      } catch (error) {
        this.count('publishErrors', 1);
        this.sealed = batch.concat(this.sealed);
        this.sealedCount += visits;
        retryInMs = backoff.next();
        this.options.logger.warn(
          { err: (error as Error).message, queued: this.depth, retryInMs },
          'visits not published yet',
        );
      }
    }
  }

  private count(counter: keyof VisitQueueStats, by: number): void {
    this.stats[counter] += by;
    this.options.onCount?.(counter, by);
  }

  /**
   * Sets the visits being written aside as a run: a mostly written buffer as it is (a new one
   * takes its place), a little written one as a copy of its visits (the buffer is written again).
   */
  private setAside(): void {
    if (this.chunkCount === 0) return;
    const used = this.chunk.subarray(0, this.chunkEnd);
    const handOver = this.chunkEnd > CHUNK_BYTES / 2;
    this.sealed.push({ bytes: handOver ? used : Buffer.from(used), count: this.chunkCount });
    this.sealedCount += this.chunkCount;
    if (handOver) this.chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    this.chunkEnd = 0;
    this.chunkCount = 0;
  }

  /** The oldest runs of visits, at most batchMax visits (runs are never larger), never none. */
  private take(): EncodedVisits[] {
    this.setAside();
    let taken = 0;
    let runs = 0;
    const fits = (count: number) => runs === 0 || taken + count <= this.options.batchMax;
    while (runs < this.sealed.length && fits(this.sealed[runs]!.count)) {
      taken += this.sealed[runs]!.count;
      runs++;
    }
    const batch = this.sealed.splice(0, runs);
    this.sealedCount -= taken;
    return batch;
  }

  /** Sleeps, unless woken early by a full batch or by drain(). */
  private async pause(ms: number): Promise<void> {
    const controller = new AbortController();
    this.wake = () => controller.abort();
    await sleep(ms, undefined, { signal: controller.signal }).catch(() => undefined);
    this.wake = undefined;
  }
}
