import pino from 'pino';
import { InternalAnswerError, InternalServiceError } from '@shortener/chassis';
import {
  encodeVisits,
  VISIT_EVENT_SCHEMA_VERSION,
  VISIT_HAND_OFF_MAX,
  VISIT_HAND_OFF_MAX_BYTES,
  visitHandOffSchema,
  type EncodedVisits,
  type VisitEvent,
} from '@shortener/contracts';
import { analyticsHandOff, handOffBatches, type HandOffAnswer } from './visit-hand-off';

const logger = pino({ level: 'silent' });
const EPOCH = 1_700_000_000_000;

/** Visit n: its timestamp says which it is. */
const visit = (n: number, userAgent = 'test agent'): VisitEvent => ({
  schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
  id: `018f0000-0000-7000-8000-${String(n).padStart(12, '0')}`,
  urlID: 'abcdefg',
  timestamp: EPOCH + n,
  ip: '203.0.113.7',
  userAgent,
  referrer: n % 2 ? 'https://example.com/' : null,
});

const runOf = (from: number, to: number, userAgent?: string): EncodedVisits =>
  encodeVisits(Array.from({ length: to - from }, (_, i) => visit(from + i, userAgent)));

const numbers = (visits: readonly VisitEvent[]) => visits.map((event) => event.timestamp - EPOCH);

const taken = (visits: readonly VisitEvent[]): HandOffAnswer => ({
  status: 200,
  body: { taken: visits.length, refused: 0 },
});

/** What a hand-off passed on, run by run (by the number of its first visit). */
function recorder() {
  const passed: Array<[number, number]> = [];
  return {
    passed,
    tell: (run: EncodedVisits, visits: number) => {
      const first = numbers(handOffBatches([run], () => undefined).next().value!.visits)[0]!;
      passed.push([first, visits]);
    },
  };
}

describe('handOffBatches', () => {
  it('reads every visit as the consumer does, in order, in batches of at most VISIT_HAND_OFF_MAX', () => {
    const runs = [runOf(0, 700), runOf(700, 2100), runOf(2100, 2101)];
    const batches = [...handOffBatches(runs, () => undefined)];
    expect(batches.map((batch) => batch.visits.length)).toEqual([VISIT_HAND_OFF_MAX, 1000, 101]);
    expect(batches.flatMap((batch) => numbers(batch.visits))).toEqual(
      Array.from({ length: 2101 }, (_, n) => n),
    );
    expect(batches[0]!.visits[1]).toEqual(visit(1));
    // Which runs each batch carries, and how much of each.
    expect(
      batches.map((batch) => batch.parts.map(([run, visits]) => [runs.indexOf(run), visits])),
    ).toEqual([
      [
        [0, 700],
        [1, 300],
      ],
      [[1, 1000]],
      [
        [1, 100],
        [2, 1],
      ],
    ]);
    for (const batch of batches) expect(visitHandOffSchema.safeParse(batch).success).toBe(true);
  });

  it("hands off each visit's campaign fields with it", () => {
    const tagged = { ...visit(1), utmSource: 'news', utmCampaign: 'spring' };
    const [batch] = [...handOffBatches([encodeVisits([visit(0), tagged])], () => undefined)];
    expect(batch!.visits).toEqual([visit(0), tagged]);
    expect(visitHandOffSchema.parse(batch).visits[1]).toEqual(tagged);
  });

  it('keeps each body within VISIT_HAND_OFF_MAX_BYTES', () => {
    const agent = 'x'.repeat(1024);
    const runs = [0, 250, 500, 750].map((from) => runOf(from, from + 250, agent));
    const batches = [...handOffBatches(runs, () => undefined)];
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) {
      expect(Buffer.byteLength(JSON.stringify({ visits: batch.visits }))).toBeLessThanOrEqual(
        VISIT_HAND_OFF_MAX_BYTES,
      );
    }
    expect(batches.reduce((sum, batch) => sum + batch.visits.length, 0)).toBe(1000);
  });

  it('leaves out a visit that fails its schema, and says why', () => {
    const bad = encodeVisits([{ ...visit(1), urlID: 'not a code!' }]);
    const reasons: string[] = [];
    const batches = [
      ...handOffBatches([runOf(0, 1), bad, runOf(2, 3)], (why) => reasons.push(why)),
    ];
    expect(batches.flatMap((batch) => numbers(batch.visits))).toEqual([0, 2]);
    expect(reasons).toEqual([expect.stringMatching(/^urlID/)]);
  });
});

describe('analyticsHandOff', () => {
  const runs = [runOf(0, 1500), runOf(1500, 1600)];

  it('posts every batch, a few at once, and tells what analytics took', async () => {
    const posted: number[][] = [];
    const { passed, tell } = recorder();
    await analyticsHandOff({
      post: (visits) => {
        posted.push(numbers(visits));
        return Promise.resolve(taken(visits));
      },
      deadline: Date.now() + 5000,
      logger,
    })(runs, tell);
    expect(posted.map((batch) => [batch[0], batch.length])).toEqual([
      [0, 1000],
      [1000, 600],
    ]);
    expect(passed).toEqual([
      [0, 1000],
      [0, 500],
      [1500, 100],
    ]);
  });

  it('tries a batch again while analytics is away, until it takes it', async () => {
    let failures = 3;
    const { passed, tell } = recorder();
    await analyticsHandOff({
      post: (visits) => {
        if (failures-- > 0) {
          return Promise.reject(
            failures === 1
              ? new InternalAnswerError('analytics', 'POST', 503, 'not expected')
              : new InternalServiceError('analytics', 'connect ECONNREFUSED'),
          );
        }
        return Promise.resolve(taken(visits));
      },
      deadline: Date.now() + 10_000,
      logger,
    })(runs, tell);
    expect(passed.reduce((sum, [, visits]) => sum + visits, 0)).toBe(1600);
  });

  it('stops at its deadline, having passed on only what was taken', async () => {
    let calls = 0;
    const { passed, tell } = recorder();
    const started = Date.now();
    await analyticsHandOff({
      post: (visits, timeoutMs) => {
        calls++;
        if (calls === 1) return Promise.resolve(taken(visits));
        expect(timeoutMs).toBeLessThanOrEqual(300);
        return Promise.reject(new InternalServiceError('analytics', 'no answer in time'));
      },
      deadline: Date.now() + 300,
      logger,
    })(runs, tell);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(calls).toBeGreaterThan(2);
    expect(passed).toEqual([[0, 1000]]);
  });

  it('leaves out a batch analytics refuses for its body, and goes on with the next', async () => {
    let calls = 0;
    const { passed, tell } = recorder();
    await analyticsHandOff({
      post: (visits) =>
        Promise.resolve(
          calls++ === 0
            ? { status: 413 as const, body: { message: 'Request body too large' } }
            : taken(visits),
        ),
      deadline: Date.now() + 5000,
      logger,
    })(runs, tell);
    // The first batch (1,000 of the first run) left out; the second taken.
    expect(passed).toEqual([
      [0, 500],
      [1500, 100],
    ]);
  });

  it('gives up at once on an answer every call would get (a wrong secret, an older analytics)', async () => {
    let calls = 0;
    const { passed, tell } = recorder();
    await analyticsHandOff({
      post: () => {
        calls++;
        return Promise.reject(new InternalAnswerError('analytics', 'POST', 404, 'not expected'));
      },
      deadline: Date.now() + 5000,
      logger,
    })([runOf(0, 5000)], tell);
    // One call of each caller at most, of five batches.
    expect(calls).toBeLessThanOrEqual(3);
    expect(passed).toEqual([]);
  });
});
