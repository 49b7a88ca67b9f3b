import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { decodeVisits, visitRecordOf, type EncodedVisits } from '@shortener/contracts';
import { VisitQueue, type VisitPublisher } from './visit-queue';
import { readSegment, VisitSpool } from './visit-spool';

const logger = pino({ level: 'silent' });
const EPOCH = 1_700_000_000_000;

/** Visit n: its timestamp says which it is. */
const push = (queue: VisitQueue, n: number) =>
  queue.push(
    'abcdefg',
    EPOCH + n,
    '127.0.0.1',
    'test agent',
    n % 2 ? 'https://example.com/' : null,
  );

const numbers = (runs: readonly EncodedVisits[]): number[] =>
  runs.flatMap((run) => {
    const read = decodeVisits(visitRecordOf(run));
    if (!read.ok) throw new Error(read.reason);
    return read.recorded!.map((visit) => visit.timestamp - EPOCH);
  });

/** Publishes nothing until told to, as a Kafka that is away. */
class HeldPublisher implements VisitPublisher {
  published: number[] = [];
  away = true;
  publish(batch: readonly EncodedVisits[]): Promise<void> {
    if (this.away) return Promise.reject(new Error('broker away'));
    this.published.push(...numbers(batch));
    return Promise.resolve();
  }
}

const segments = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.spool'))
    .sort();

describe('VisitSpool', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'spool-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const options = { maxBytes: 64 * 1024 * 1024, runMax: 100, logger };

  function queueOn(publisher: VisitPublisher, spool = VisitSpool.open(dir, options)) {
    return {
      queue: new VisitQueue(publisher, {
        maxSize: 1_000_000,
        batchMax: 100,
        flushIntervalMs: 5,
        logger,
        spool,
      }),
      spool: spool.spool,
    };
  }

  it('gives the next process every visit written before a crash, in order', async () => {
    const { queue } = queueOn(new HeldPublisher());
    for (let n = 0; n < 250; n++) push(queue, n);
    queue.spoolNow();
    // The process dies here: nothing is closed, nothing drained.
    const { recovered } = VisitSpool.open(dir, options);
    expect(numbers(recovered)).toEqual(Array.from({ length: 250 }, (_, n) => n));
    expect(Math.max(...recovered.map((run) => run.count))).toBeLessThanOrEqual(100);
    await queue.drain(10);
  });

  it("keeps each visit's campaign fields through a crash", async () => {
    const { queue } = queueOn(new HeldPublisher());
    for (let n = 0; n < 150; n++) {
      const utm = n % 3 === 0 ? { utmSource: `s${n}`, utmCampaign: 'spring 🌷' } : undefined;
      queue.push('abcdefg', EPOCH + n, '127.0.0.1', 'agent', null, undefined, utm);
    }
    queue.spoolNow();
    const { recovered } = VisitSpool.open(dir, options);
    const visits = recovered.flatMap((run) => {
      const read = decodeVisits(visitRecordOf(run));
      if (!read.ok) throw new Error(read.reason);
      return read.events;
    });
    expect(visits).toHaveLength(150);
    for (const [n, visit] of visits.entries()) {
      expect(
        visit.ok && [visit.event.utmSource, visit.event.utmMedium, visit.event.utmCampaign],
      ).toEqual(
        n % 3 === 0 ? [`s${n}`, undefined, 'spring 🌷'] : [undefined, undefined, undefined],
      );
    }
    await queue.drain(10);
  });

  it('writes nothing a turn has not queued, and only once', () => {
    const { queue } = queueOn(new HeldPublisher());
    push(queue, 1);
    queue.spoolNow();
    queue.spoolNow();
    push(queue, 2);
    queue.spoolNow();
    expect(numbers(VisitSpool.open(dir, options).recovered)).toEqual([1, 2]);
    void queue.drain(10);
  });

  it('publishes what it recovers first, then deletes the segments Kafka has acknowledged', async () => {
    const first = queueOn(new HeldPublisher());
    for (let n = 0; n < 30; n++) push(first.queue, n);
    first.queue.spoolNow();

    const publisher = new HeldPublisher();
    publisher.away = false;
    const second = queueOn(publisher);
    for (let n = 30; n < 40; n++) push(second.queue, n);
    second.queue.spoolNow();
    await second.queue.drain();
    second.spool.close();
    expect(publisher.published).toEqual(Array.from({ length: 40 }, (_, n) => n));
    // The recovered segment is gone; the current one holds visits all acknowledged, and the
    // next process finds nothing to publish again.
    expect(VisitSpool.open(dir, options).recovered).toEqual([]);
    void first.queue.drain(10);
  });

  it('keeps a visit neither Kafka nor the hand-off took for a next process, and counts it', async () => {
    const { queue, spool } = queueOn(new HeldPublisher());
    for (let n = 0; n < 5; n++) push(queue, n);
    expect(await queue.drain(20)).toBe(5);
    expect(await queue.handOff(() => Promise.reject(new Error('analytics away')))).toEqual({
      handedOff: 0,
      lost: 5,
    });
    spool.close();
    // Lost if the folder goes with the pod: counted. Published if it outlives the container.
    expect(queue.counters.droppedAtShutdown).toBe(5);
    expect(numbers(VisitSpool.open(dir, options).recovered)).toEqual([0, 1, 2, 3, 4]);
  });

  it('removes from the spool what it hands off, and keeps a segment it handed off in part', async () => {
    const { queue, spool } = queueOn(new HeldPublisher());
    // Two segments: the first closed at 4 MiB (about 60 bytes a visit), the second open.
    for (let n = 0; n < 100_000; n++) {
      push(queue, n);
      if (n % 1000 === 999) queue.spoolNow();
    }
    expect(segments(dir).length).toBeGreaterThanOrEqual(2);
    expect(await queue.drain(20)).toBe(100_000);
    const outcome = await queue.handOff((runs, passed) => {
      // All but the last visit.
      for (const [index, run] of runs.entries()) {
        passed(run, index === runs.length - 1 ? run.count - 1 : run.count);
      }
      return Promise.resolve();
    });
    spool.close();
    expect(outcome).toEqual({ handedOff: 99_999, lost: 1 });
    // Only the segment of the visit not handed off is left, whole.
    expect(segments(dir)).toHaveLength(1);
    const left = numbers(VisitSpool.open(dir, options).recovered);
    expect(left.at(-1)).toBe(99_999);
    expect(left.length).toBeLessThan(100_000);
  });

  it('reads a torn last visit as absent, and the visits before it whole', () => {
    const { queue } = queueOn(new HeldPublisher());
    for (let n = 0; n < 3; n++) push(queue, n);
    queue.spoolNow();
    const [file] = segments(dir);
    const full = readFileSync(path.join(dir, file!)).length;
    truncateSync(path.join(dir, file!), full - 5);
    expect(numbers(VisitSpool.open(dir, options).recovered)).toEqual([0, 1]);
    void queue.drain(10);
  });

  it('publishes no run it cannot read as a record, and says why', () => {
    const bytes = Buffer.alloc(64, 0xff);
    const read = readSegment(bytes, 100);
    expect(read.runs).toEqual([]);
    expect(read.problem).toMatch(/torn|unreadable/);
  });

  it('deletes its oldest segments past its size limit, counting their visits', () => {
    let evicted = 0;
    const small = { ...options, maxBytes: 1024 * 1024, onEvicted: (n: number) => (evicted += n) };
    const { queue, spool } = queueOn(new HeldPublisher(), VisitSpool.open(dir, small));
    // About 60 bytes a visit: 200,000 of them are some 12 MB, three segments and more.
    for (let n = 0; n < 200_000; n++) {
      push(queue, n);
      if (n % 1000 === 999) queue.spoolNow();
    }
    queue.spoolNow();
    expect(spool.bytes).toBeLessThanOrEqual(1024 * 1024 + 4 * 1024 * 1024);
    expect(evicted).toBeGreaterThan(0);
    const left = numbers(VisitSpool.open(dir, small).recovered);
    // What is left is the newest visits, in order.
    expect(left.at(-1)).toBe(199_999);
    expect(left).toEqual(Array.from({ length: left.length }, (_, i) => 200_000 - left.length + i));
    void queue.drain(10);
  });

  it('refuses a folder a running process owns, and takes over a dead owner’s', () => {
    writeFileSync(path.join(dir, 'owner.pid'), `${process.ppid}\n`);
    expect(() => VisitSpool.open(dir, options)).toThrow(/belongs to a running process/);
    writeFileSync(path.join(dir, 'owner.pid'), '2147483646\n');
    expect(() => VisitSpool.open(dir, options)).not.toThrow();
  });

  it('ignores files that are not its segments', () => {
    appendFileSync(path.join(dir, 'notes.txt'), 'hello');
    expect(VisitSpool.open(dir, options).recovered).toEqual([]);
  });
});
