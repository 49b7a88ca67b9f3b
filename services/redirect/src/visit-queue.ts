import { randomFillSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { RecoveredRun, VisitSpool } from './visit-spool';
import { Backoff } from '@shortener/chassis';
import {
  appendVisit,
  VISIT_ID_BYTES,
  VISIT_TEXT_MAX,
  visitBytesBound,
  type EncodedVisits,
  type VisitTrace,
  type VisitUtm,
} from '@shortener/contracts';

/**
 * Where queued visits go: Kafka when distributed, an in-process bus when embedded. A batch is
 * one or more runs of encoded visits, in the order they were queued.
 */
export interface VisitPublisher {
  publish(batch: readonly EncodedVisits[]): Promise<void>;
}

/**
 * A second way out for what a drain gave up on (analytics' ingest while Kafka is away): it is
 * given the runs held and tells `passed` of the visits of each run it passed on (a run's
 * first visits first, in part or whole); it resolves once it has tried them all.
 */
export type VisitHandOff = (
  runs: readonly EncodedVisits[],
  passed: (run: EncodedVisits, visits: number) => void,
) => Promise<void>;

interface VisitQueueStats {
  published: number;
  /** Refused because the queue was full. */
  dropped: number;
  /**
   * Still queued, or sent but not acknowledged, when a drain's deadline passed, and then not
   * handed off either (with a spool, left there: a next process on the folder publishes them,
   * if the folder outlives this one).
   */
  droppedAtShutdown: number;
  publishErrors: number;
}

interface VisitQueueOptions {
  maxSize: number;
  batchMax: number;
  flushIntervalMs: number;
  logger: Logger;
  /** Told of every change to the counters, for metrics. */
  onCount?: (counter: keyof VisitQueueStats, by: number) => void;
  /**
   * Where visits are written before their answers leave (spoolNow), so a crash loses none;
   * `recovered`, what an earlier process left there, is published first.
   */
  spool?: { spool: VisitSpool; recovered: readonly RecoveredRun[] };
}

/**
 * A run set aside, with the spool segment its visits were written to (if spooled); `late`:
 * acknowledged by Kafka after a drain gave up on it.
 */
type Run = EncodedVisits & { segment?: number; late?: boolean };

/** Visits are written into buffers of this size; a full one is set aside as it is. */
const CHUNK_BYTES = 64 * 1024;
/** Kept within what the schema lets through; longer ones are cut (rare: a copy then). */
const { userAgent: MAX_USER_AGENT, referrer: MAX_REFERRER } = VISIT_TEXT_MAX;

/**
 * Time-ordered version-7 UUIDs (RFC 9562), 74 random bits from a pool filled 256 ids at once:
 * ids that follow time grow the visits' primary key at one end, not on a random page of it.
 */
class VisitIds {
  readonly pool = Buffer.allocUnsafe(VISIT_ID_BYTES * 256);
  private next = this.pool.length;

  /** Makes the next id, in the pool: answers where its bytes are. */
  take(timestamp: number): number {
    if (this.next === this.pool.length) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    const at = this.next;
    this.next += VISIT_ID_BYTES;
    const pool = this.pool;
    pool.writeUIntBE(timestamp, at, 6);
    pool[at + 6] = (pool[at + 6]! & 0x0f) | 0x70; // version 7
    pool[at + 8] = (pool[at + 8]! & 0x3f) | 0x80; // RFC 9562 variant
    return at;
  }
}

/**
 * Visits wait here, bounded, as the bytes they travel as (no objects for the garbage collector
 * to carry), and leave in batches; a failed batch is retried, a full queue drops and counts.
 */
export class VisitQueue {
  /** Runs of visits set aside, oldest first, and how many visits they hold. */
  private sealed: Run[] = [];
  private sealedCount = 0;
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private chunkEnd = 0;
  private chunkCount = 0;
  /** The trace contexts of the chunk's visits, by index; only once one of them is traced. */
  private chunkTraces: Array<VisitTrace | undefined> | undefined;
  /** How much of the chunk is in the spool already: its bytes, and its visits. */
  private spooledEnd = 0;
  private spooledCount = 0;
  private readonly spool: VisitSpool | undefined;
  private readonly ids = new VisitIds();
  private readonly stats: VisitQueueStats = {
    published: 0,
    dropped: 0,
    droppedAtShutdown: 0,
    publishErrors: 0,
  };
  private stopping = false;
  /** Set when a drain gives up: the loop ends after the attempt in progress. */
  private abandoned = false;
  /** The batch being published now (out of the queue, not yet acknowledged). */
  private inFlight: Run[] = [];
  /** What a drain gave up on, for handOff. */
  private held: Run[] = [];
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly publisher: VisitPublisher,
    private readonly options: VisitQueueOptions,
  ) {
    this.spool = options.spool?.spool;
    for (const run of options.spool?.recovered ?? []) {
      this.sealed.push(run);
      this.sealedCount += run.count;
    }
    this.loop = this.run();
  }

  /**
   * Writes the visits queued since the last call to the spool, in one write (nothing without
   * a spool): the redirect handler calls it once an event-loop turn, before the answers of
   * those visits leave.
   */
  spoolNow(): void {
    if (this.spool === undefined || this.chunkEnd === this.spooledEnd) return;
    this.spool.write(
      [this.chunk.subarray(this.spooledEnd, this.chunkEnd)],
      this.chunkCount - this.spooledCount,
    );
    this.spooledEnd = this.chunkEnd;
    this.spooledCount = this.chunkCount;
  }

  /** Whether answers must wait for spoolNow. */
  get spooling(): boolean {
    return this.spool !== undefined;
  }

  /**
   * Queues a visit with a new id; `timestamp` in whole milliseconds since the epoch. `trace`:
   * the redirect request's span, when it is traced (it travels with the visit to Kafka).
   * `utm`: the request's campaign fields (visitUtmOf), written in the visit's bytes.
   */
  push(
    urlID: string,
    timestamp: number,
    ip: string,
    userAgent: string,
    referrer: string | null,
    trace?: VisitTrace,
    utm?: VisitUtm,
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
    if (this.chunkEnd + visitBytesBound(urlID, ip, agent, from, utm) > CHUNK_BYTES) {
      this.setAside();
    }
    if (trace !== undefined) (this.chunkTraces ??= [])[this.chunkCount] = trace;
    this.chunkEnd = appendVisit(
      this.chunk,
      this.chunkEnd,
      this.ids.pool,
      this.ids.take(timestamp),
      timestamp,
      urlID,
      ip,
      agent,
      from,
      utm,
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

  /**
   * Publishes everything queued, then stops. Past `timeoutMs` it gives up instead (a broker
   * that is away would otherwise hold the process until it is killed): it resolves with how
   * many visits were then still queued or sent without an acknowledgement, which it holds
   * for handOff; 0 when everything was published.
   */
  async drain(timeoutMs = Number.POSITIVE_INFINITY): Promise<number> {
    this.stopping = true;
    this.wake?.();
    if (timeoutMs === Number.POSITIVE_INFINITY) {
      await this.loop;
      return 0;
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    const outcome = await Promise.race([this.loop, deadline]);
    clearTimeout(timer);
    if (outcome !== 'late') return 0;
    this.abandoned = true;
    this.wake?.();
    const unacknowledged = this.depth + this.inFlight.reduce((sum, run) => sum + run.count, 0);
    // Spooled first: with a spool, what is not handed off stays there.
    this.setAside();
    this.held = this.inFlight.concat(this.sealed);
    this.sealed = [];
    this.sealedCount = 0;
    return unacknowledged;
  }

  /**
   * Gives what a drain gave up on to `handOff`: what it passes on leaves the spool, what it
   * does not is counted as droppedAtShutdown (with a spool it stays there). A batch Kafka
   * acknowledges meanwhile is not lost either. Answers how many visits it handed off, and
   * how many it lost.
   */
  async handOff(handOff: VisitHandOff): Promise<{ handedOff: number; lost: number }> {
    const held = this.held;
    this.held = [];
    const passed = new Map<EncodedVisits, number>();
    try {
      await handOff(held, (run, visits) => passed.set(run, (passed.get(run) ?? 0) + visits));
    } catch (error) {
      this.options.logger.error({ err: (error as Error).message }, 'visit hand-off failed');
    }
    let handedOff = 0;
    let lost = 0;
    for (const run of held) {
      const given = Math.min(run.count, passed.get(run) ?? 0);
      handedOff += given;
      if (!run.late) lost += run.count - given;
      // Each visit acknowledged once, whichever way it went.
      const acknowledged = run.late ? run.count : given;
      if (run.segment !== undefined && acknowledged > 0) {
        this.spool?.acknowledge(run.segment, acknowledged);
      }
    }
    if (lost > 0) this.count('droppedAtShutdown', lost);
    return { handedOff, lost };
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ initialMs: 100, maxMs: 2000 });
    let retryInMs = 0;
    for (;;) {
      if (this.abandoned) return;
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
      if (this.abandoned) return;
      const batch = this.take();
      const visits = batch.reduce((sum, run) => sum + run.count, 0);
      this.inFlight = batch;
      try {
        await this.publisher.publish(batch);
        this.inFlight = [];
        this.count('published', visits);
        if (this.abandoned) {
          // Held for handOff meanwhile, which acknowledges them in the spool.
          for (const run of batch) run.late = true;
          return;
        }
        for (const run of batch) {
          if (run.segment !== undefined) this.spool?.acknowledge(run.segment, run.count);
        }
        retryInMs = 0;
        backoff.reset();
      } catch (error) {
        this.inFlight = [];
        if (this.abandoned) return;
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
    // All of a run goes to one segment: what is not spooled yet is written first, and only
    // then may the spool begin a new segment.
    this.spoolNow();
    const used = this.chunk.subarray(0, this.chunkEnd);
    const handOver = this.chunkEnd > CHUNK_BYTES / 2;
    const run: Run = { bytes: handOver ? used : Buffer.from(used), count: this.chunkCount };
    if (this.chunkTraces !== undefined) {
      run.traces = this.chunkTraces;
      this.chunkTraces = undefined;
    }
    if (this.spool !== undefined) {
      run.segment = this.spool.segment;
      this.spool.runSealed();
    }
    this.sealed.push(run);
    this.sealedCount += this.chunkCount;
    if (handOver) this.chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    this.chunkEnd = 0;
    this.chunkCount = 0;
    this.spooledEnd = 0;
    this.spooledCount = 0;
  }

  /** The oldest runs of visits, at most batchMax visits (runs are never larger), never none. */
  private take(): Run[] {
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
