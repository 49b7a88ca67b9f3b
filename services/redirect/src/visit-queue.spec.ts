import pino from 'pino';
import {
  checkVisitFields,
  decodeVisits,
  visitRecordOf,
  type EncodedVisits,
  type RecordedVisit,
  type VisitTrace,
} from '@shortener/contracts';
import { VisitQueue, type VisitPublisher } from './visit-queue';

const logger = pino({ level: 'silent' });
const EPOCH = 1_700_000_000_000;

/** Queues visit n: its timestamp says which it is. */
function push(queue: VisitQueue, n: number): void {
  queue.push('abcdefg', EPOCH + n, '127.0.0.1', 'test', null);
}

/** The visits of a run, read back as any consumer reads them. */
/** Resolves once `done` holds, looking every few milliseconds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * A queue of six visits whose publisher answers its first batch only once released; `sent`
 * resolves once that batch is in flight.
 */
function hangingQueueOfSix(): { queue: VisitQueue; release: () => void; sent: Promise<void> } {
  let answer: () => void = () => undefined;
  let taken: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (taken = resolve));
  const hanging: VisitPublisher = {
    publish: () => {
      taken();
      return new Promise<void>((resolve) => (answer = resolve));
    },
  };
  const queue = new VisitQueue(hanging, { maxSize: 1000, batchMax: 4, flushIntervalMs: 5, logger });
  for (let n = 0; n < 6; n += 1) push(queue, n);
  return { queue, release: () => answer(), sent };
}

function visitsOf(run: EncodedVisits): RecordedVisit[] {
  const read = decodeVisits(visitRecordOf(run));
  if (!read.ok) throw new Error(read.reason);
  return read.recorded!;
}

class RecordingPublisher implements VisitPublisher {
  batches: RecordedVisit[][] = [];
  failuresLeft = 0;

  publish(batch: readonly EncodedVisits[]): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      return Promise.reject(new Error('broker away'));
    }
    this.batches.push(batch.flatMap(visitsOf));
    return Promise.resolve();
  }

  get published(): number[] {
    return this.batches.flat().map((visit) => visit.timestamp - EPOCH);
  }
}

describe('VisitQueue', () => {
  it("keeps each traced visit's trace context beside it, through runs and a failed publish", async () => {
    const seen: { timestamp: number; trace: VisitTrace | undefined }[] = [];
    let failuresLeft = 1;
    const queue = new VisitQueue(
      {
        publish(batch) {
          if (failuresLeft-- > 0) return Promise.reject(new Error('broker away'));
          for (const run of batch) {
            for (const [index, visit] of visitsOf(run).entries()) {
              seen.push({ timestamp: visit.timestamp - EPOCH, trace: run.traces?.[index] });
            }
          }
          return Promise.resolve();
        },
      },
      { maxSize: 1000, batchMax: 4, flushIntervalMs: 5, logger },
    );
    const traceOf = (n: number): VisitTrace => ({
      traceId: n.toString(16).padStart(32, '0'),
      spanId: n.toString(16).padStart(16, '0'),
      traceFlags: 1,
    });
    // Visits 0..9; those divisible by 3 traced.
    for (let n = 0; n < 10; n += 1) {
      queue.push(
        'abcdefg',
        EPOCH + n,
        '127.0.0.1',
        'test',
        null,
        n % 3 === 0 ? traceOf(n) : undefined,
      );
    }
    await queue.drain();
    expect(seen).toEqual(
      Array.from({ length: 10 }, (_, n) => ({
        timestamp: n,
        trace: n % 3 === 0 ? traceOf(n) : undefined,
      })),
    );
  });

  it('gives runs without traced visits no traces at all', async () => {
    const publisher = new RecordingPublisher();
    const runs: EncodedVisits[] = [];
    const queue = new VisitQueue(
      { publish: (batch) => (runs.push(...batch), publisher.publish(batch)) },
      { maxSize: 100, batchMax: 4, flushIntervalMs: 5, logger },
    );
    for (let n = 0; n < 9; n += 1) push(queue, n);
    await queue.drain();
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.every((run) => run.traces === undefined)).toBe(true);
  });

  it('publishes in batches of at most batchMax, in order, and drains everything on stop', async () => {
    const publisher = new RecordingPublisher();
    const queue = new VisitQueue(publisher, {
      maxSize: 1000,
      batchMax: 10,
      flushIntervalMs: 5,
      logger,
    });
    for (let n = 0; n < 35; n += 1) push(queue, n);
    await queue.drain();
    expect(publisher.published).toEqual(Array.from({ length: 35 }, (_, n) => n));
    expect(Math.max(...publisher.batches.map((b) => b.length))).toBeLessThanOrEqual(10);
    expect(queue.depth).toBe(0);
    expect(queue.counters).toEqual({
      published: 35,
      dropped: 0,
      droppedAtShutdown: 0,
      publishErrors: 0,
    });
  });

  it('writes each visit as the schema wants it: a new time-ordered (version-7) id each, texts cut to their limits', async () => {
    const publisher = new RecordingPublisher();
    const queue = new VisitQueue(publisher, {
      maxSize: 10_000,
      batchMax: 5000,
      flushIntervalMs: 5,
      logger,
    });
    const longAgent = `Mozilla/5.0 ${'x'.repeat(3000)}`;
    const longReferrer = `https://example.com/${'é'.repeat(5000)}`;
    queue.push('AbC1234', EPOCH, '2001:db8::7', longAgent, longReferrer);
    // Enough visits to fill several of the queue's buffers.
    for (let n = 1; n < 3000; n += 1) queue.push('AbC1234', EPOCH + n, '203.0.113.9', 'ua', null);
    await queue.drain();
    const visits = publisher.batches.flat();
    expect(visits).toHaveLength(3000);
    expect(visits[0]).toEqual({
      id: expect.any(String) as string,
      urlID: 'AbC1234',
      timestamp: EPOCH,
      ip: '2001:db8::7',
      userAgent: longAgent.slice(0, 1024),
      referrer: longReferrer.slice(0, 2048),
    });
    expect(visits.map((visit) => visit.timestamp - EPOCH)).toEqual(
      Array.from({ length: 3000 }, (_, n) => n),
    );
    expect(new Set(visits.map((visit) => visit.id)).size).toBe(3000);
    for (const visit of visits) {
      expect(visit.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      // Its first 48 bits are the visit's time in milliseconds, so ids follow time (the
      // stored visits' primary key then grows at one end).
      expect(parseInt(visit.id.replace('-', '').slice(0, 12), 16)).toBe(visit.timestamp);
      expect(checkVisitFields(visit).ok).toBe(true);
    }
  });

  it('keeps a failed batch and retries it first, losing and doubling nothing', async () => {
    const publisher = new RecordingPublisher();
    publisher.failuresLeft = 2;
    const queue = new VisitQueue(publisher, {
      maxSize: 1000,
      batchMax: 4,
      flushIntervalMs: 5,
      logger,
    });
    for (let n = 0; n < 10; n += 1) push(queue, n);
    await queue.drain();
    expect(publisher.published).toEqual(Array.from({ length: 10 }, (_, n) => n));
    expect(queue.counters.publishErrors).toBe(2);
  });

  it('waits between retries with jittered, doubling back-off, shortest again after a success', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0); // the shortest wait of each step: half of it
    const warn = jest.fn();
    const publisher = new RecordingPublisher();
    publisher.failuresLeft = 3;
    const queue = new VisitQueue(publisher, {
      maxSize: 1000,
      batchMax: 1,
      flushIntervalMs: 5,
      logger: { warn } as unknown as typeof logger,
    });
    push(queue, 0);
    await until(() => publisher.batches.length > 0);
    publisher.failuresLeft = 1;
    push(queue, 1);
    await queue.drain();
    jest.restoreAllMocks();
    expect(warn.mock.calls.map(([fields]) => (fields as { retryInMs: number }).retryInMs)).toEqual([
      50, 100, 200, 50,
    ]);
    expect(publisher.published).toEqual([0, 1]);
  });

  it('drops new visits when full instead of blocking, and counts them', async () => {
    const publisher = new RecordingPublisher();
    publisher.failuresLeft = 1;
    const counted: string[] = [];
    const queue = new VisitQueue(publisher, {
      maxSize: 5,
      batchMax: 100,
      flushIntervalMs: 50,
      logger,
      onCount: (counter) => counted.push(counter),
    });
    for (let n = 0; n < 8; n += 1) push(queue, n);
    expect(queue.depth).toBe(5);
    expect(queue.counters.dropped).toBe(3);
    await queue.drain();
    expect(publisher.published).toEqual([0, 1, 2, 3, 4]);
    expect(counted.filter((c) => c === 'dropped')).toHaveLength(3);
  });

  it('gives up draining at the deadline and says exactly how many visits were never acknowledged', async () => {
    const publisher = new RecordingPublisher();
    publisher.failuresLeft = Number.POSITIVE_INFINITY; // Kafka away for good
    const counted: [string, number][] = [];
    const queue = new VisitQueue(publisher, {
      maxSize: 1000,
      batchMax: 4,
      flushIntervalMs: 5,
      logger,
      onCount: (counter, by) => counted.push([counter, by]),
    });
    for (let n = 0; n < 10; n += 1) push(queue, n);
    const started = Date.now();
    expect(await queue.drain(300)).toBe(10);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(queue.depth).toBe(0);
    // Nothing takes them instead: every one is counted.
    expect(await queue.handOff(() => Promise.resolve())).toEqual({ handedOff: 0, lost: 10 });
    expect(queue.counters.droppedAtShutdown).toBe(10);
    expect(counted).toContainEqual(['droppedAtShutdown', 10]);
  });

  it('hands what a drain gave up on to its second way out, in order, the batch in flight first, counting what it could not pass on', async () => {
    const publisher = new RecordingPublisher();
    publisher.failuresLeft = Number.POSITIVE_INFINITY;
    const queue = new VisitQueue(publisher, {
      maxSize: 1000,
      batchMax: 4,
      flushIntervalMs: 5,
      logger,
    });
    for (let n = 0; n < 10; n += 1) push(queue, n);
    // The first batch taken, failed and kept first.
    await until(() => queue.counters.publishErrors > 0);
    expect(await queue.drain(50)).toBe(10);

    const given: number[] = [];
    const outcome = await queue.handOff((runs, passed) => {
      // Passes the first seven visits on, the last run only in part.
      let left = 7;
      for (const run of runs) {
        const visits = Math.min(left, run.count);
        given.push(
          ...visitsOf(run)
            .slice(0, visits)
            .map((visit) => visit.timestamp - EPOCH),
        );
        if (visits > 0) passed(run, visits);
        left -= visits;
      }
      return Promise.resolve();
    });
    expect(given).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(outcome).toEqual({ handedOff: 7, lost: 3 });
    expect(queue.counters.droppedAtShutdown).toBe(3);
  });

  it('counts as lost none of a batch Kafka acknowledged while the hand-off failed', async () => {
    const { queue, release, sent } = hangingQueueOfSix();
    await sent;
    expect(await queue.drain(50)).toBe(6);
    const outcome = await queue.handOff(async () => {
      // Kafka answers for the batch it had (four visits) while analytics is away.
      release();
      await until(() => queue.counters.published === 4);
      throw new Error('analytics away');
    });
    expect(outcome).toEqual({ handedOff: 0, lost: 2 });
    expect(queue.counters.droppedAtShutdown).toBe(2);
  });

  it('counts a batch still being sent at the deadline among the unacknowledged', async () => {
    const { queue, release } = hangingQueueOfSix();
    expect(await queue.drain(200)).toBe(6);
    release();
  });

  it('reports nothing dropped when the drain ends in time', async () => {
    const queue = new VisitQueue(new RecordingPublisher(), {
      maxSize: 1000,
      batchMax: 4,
      flushIntervalMs: 5,
      logger,
    });
    for (let n = 0; n < 6; n += 1) push(queue, n);
    expect(await queue.drain(5000)).toBe(0);
    expect(queue.counters.droppedAtShutdown).toBe(0);
  });
});
