import pino from 'pino';
import type { VisitEvent } from '@shortener/contracts';
import { VisitQueue, type VisitPublisher } from './visit-queue';

const logger = pino({ level: 'silent' });

function event(n: number): VisitEvent {
  return {
    schemaVersion: 1,
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    urlID: 'abcdefg',
    timestamp: 1_700_000_000_000 + n,
    ip: '127.0.0.1',
    userAgent: 'test',
    referrer: null,
  };
}

class RecordingPublisher implements VisitPublisher {
  batches: VisitEvent[][] = [];
  failuresLeft = 0;

  publish(events: VisitEvent[]): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      return Promise.reject(new Error('broker away'));
    }
    this.batches.push(events);
    return Promise.resolve();
  }

  get published(): number[] {
    return this.batches.flat().map((e) => e.timestamp - 1_700_000_000_000);
  }
}

describe('VisitQueue', () => {
  it('publishes in batches of at most batchMax, in order, and drains everything on stop', async () => {
    const publisher = new RecordingPublisher();
    const queue = new VisitQueue(publisher, {
      maxSize: 1000,
      batchMax: 10,
      flushIntervalMs: 5,
      logger,
    });
    for (let n = 0; n < 35; n += 1) queue.push(event(n));
    await queue.drain();
    expect(publisher.published).toEqual(Array.from({ length: 35 }, (_, n) => n));
    expect(Math.max(...publisher.batches.map((b) => b.length))).toBeLessThanOrEqual(10);
    expect(queue.depth).toBe(0);
    expect(queue.counters).toEqual({ published: 35, dropped: 0, publishErrors: 0 });
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
    for (let n = 0; n < 10; n += 1) queue.push(event(n));
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
    queue.push(event(0));
    while (publisher.batches.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    publisher.failuresLeft = 1;
    queue.push(event(1));
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
    for (let n = 0; n < 8; n += 1) queue.push(event(n));
    expect(queue.depth).toBe(5);
    expect(queue.counters.dropped).toBe(3);
    await queue.drain();
    expect(publisher.published).toEqual([0, 1, 2, 3, 4]);
    expect(counted.filter((c) => c === 'dropped')).toHaveLength(3);
  });
});
