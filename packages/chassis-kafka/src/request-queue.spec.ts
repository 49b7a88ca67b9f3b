import pino from 'pino';
import { createKafka } from './kafka';
import { scheduleOnlyWhileWaiting } from './request-queue';

// kafkajs's own RequestQueue, driven as a broker connection drives it: push a request, the
// broker answers it (fulfillRequest), or asks the client to hold back (maybeThrottle).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const KafkaRequestQueue = require('kafkajs/src/network/requestQueue') as new (
  options: object,
) => Queue;

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttleCheckTimeoutId: unknown;
  push(request: object): void;
  fulfillRequest(answer: { correlationId: number; payload: unknown; size: number }): void;
  maybeThrottle(milliseconds: number): void;
  checkPendingRequests(): void;
}

const logger = { debug: () => undefined, warn: () => undefined };
const options = {
  maxInFlightRequests: 1,
  requestTimeout: 30_000,
  enforceRequestTimeout: false,
  clientId: 'test',
  broker: '127.0.0.1:9092',
  logger,
};

/** The queue's class with the patch, leaving kafkajs's own untouched for the test of it. */
class PatchedQueue extends (KafkaRequestQueue as unknown as new (options: object) => object) {}
scheduleOnlyWhileWaiting(PatchedQueue.prototype as never);
const patched = () => new PatchedQueue(options) as Queue;

/** A request that records when it is sent. */
function request(correlationId: number, sent: number[]): object {
  return {
    entry: { correlationId, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

const answer = (correlationId: number) => ({ correlationId, payload: null, size: 0 });

/** How many times the queue checks its waiting requests while `ms` pass. */
function checksDuring(queue: Queue, ms: number): number {
  const check = jest.spyOn(queue, 'checkPendingRequests');
  jest.advanceTimersByTime(ms);
  const calls = check.mock.calls.length;
  check.mockRestore();
  return calls;
}

describe("kafkajs's request queue", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('as kafkajs ships it, checks an empty queue every millisecond once a request is answered', () => {
    const queue = new KafkaRequestQueue(options);
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.fulfillRequest(answer(1));
    expect(queue.pending).toEqual([]);
    expect(checksDuring(queue, 1000)).toBeGreaterThan(500);
  });

  it('patched, schedules nothing while no request waits', () => {
    const queue = patched();
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.fulfillRequest(answer(1));
    expect(sent).toEqual([1]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    expect(checksDuring(queue, 1000)).toBe(0);
  });

  it('patched, sends a request held back by one in flight as soon as that one is answered', () => {
    const queue = patched();
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.push(request(2, sent));
    expect(sent).toEqual([1]);
    expect(queue.pending).toHaveLength(1);
    queue.fulfillRequest(answer(1));
    expect(sent).toEqual([1, 2]);
    queue.fulfillRequest(answer(2));
    // The check scheduled while 2 waited comes once, finds none waiting, and schedules no other.
    expect(checksDuring(queue, 1000)).toBe(1);
  });

  it('patched, sends a request the broker throttled when the throttle ends, then rests', () => {
    const queue = patched();
    const sent: number[] = [];
    queue.maybeThrottle(200);
    queue.push(request(1, sent));
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(199);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([1]);
    queue.fulfillRequest(answer(1));
    expect(checksDuring(queue, 1000)).toBe(0);
  });

  it("is patched in kafkajs itself by the chassis's first client", () => {
    createKafka({
      clientId: 'test',
      brokers: ['127.0.0.1:1'],
      logger: pino({ enabled: false }),
      security: { KAFKA_SSL: false },
    });
    const queue = new KafkaRequestQueue(options);
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.fulfillRequest(answer(1));
    expect(checksDuring(queue, 1000)).toBe(0);
  });
});
