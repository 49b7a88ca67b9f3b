import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LoadOptions {
  /** Base URLs of redirect instances; requests go to them in turn. */
  targets: readonly string[];
  /** Where each code must redirect to; the codes requested, in turn. */
  expected: ReadonlyMap<string, string>;
  ratePerSecond: number;
  durationMs: number;
  /** Requests waiting for an answer at once; beyond it a due request is skipped, never queued. */
  maxInFlight?: number;
  /**
   * What a load balancer does: a request that got no answer at all from one instance (its
   * socket refused or closed) is sent once to the next one.
   */
  failover?: boolean;
  timeoutMs?: number;
  /**
   * Whether a 302's Location is right for a code (by default: equal to `expected`'s), for a
   * scenario whose links change destination under load.
   */
  accepts?: (code: string, location: string | undefined) => boolean;
  /** Told of every answer, for a scenario that looks at when each was given. */
  onAnswer?: (answer: Answer) => void;
}

/** One answer as onAnswer sees it. */
export interface Answer {
  target: string;
  code: string;
  status: number;
  location: string | undefined;
  sentAt: number;
  answeredAt: number;
}

/** One request, as the test may look at it while it is in flight. */
export interface Attempt {
  target: string;
  code: string;
  startedAt: number;
  /**
   * The HTTP status (a 302 with another Location counts as 'wrong-location'), or the error
   * code when no answer came; undefined while waiting.
   */
  outcome?: number | string;
}

export interface LoadResult {
  /** Requests sent (failovers not counted twice); never more than rate × duration. */
  sent: number;
  /** Due requests not sent because maxInFlight were already waiting. */
  skipped: number;
  /** 302 answers with the stored Location, per code: what the visits stored must equal. */
  served: Map<string, number>;
  servedTotal: number;
  /** Every final outcome: HTTP status, 'wrong-location', or an error code. */
  outcomes: Map<string, number>;
  failovers: number;
  /**
   * Requests that failed without an answer: when, to which target, why (`code`: the error's),
   * on a reused socket?, and the short code asked for (`link`).
   */
  failures: { at: number; target: string; code: string; reused: boolean; link: string }[];
  /** Latency of every answered request, milliseconds, with the time it was sent. */
  latencies: { at: number; ms: number }[];
  startedAt: number;
  endedAt: number;
}

const TICK_MS = 5;

/**
 * An open-loop load generator for GET /r/{code}: a fixed rate for a fixed time, keep-alive
 * sockets, loopback only, counting 302s per code. It stops by itself after `durationMs` and
 * never sends more than rate × duration requests; it then waits for the answers still due
 * (each bounded by `timeoutMs`).
 */
export class RedirectLoad {
  private readonly agents = new Map<string, Agent>();
  private readonly pending = new Set<Attempt>();
  private readonly codes: string[];
  private readonly result: LoadResult;
  private next = 0;
  private stopped = false;
  readonly done: Promise<LoadResult>;

  constructor(private readonly options: LoadOptions) {
    for (const target of options.targets) {
      if (new URL(target).hostname !== '127.0.0.1') throw new Error(`not loopback: ${target}`);
      // Idle sockets are closed before the server's 5 s keep-alive timeout would close them:
      // Node's agent only heeds the server's Keep-Alive hint when it has a timeout of its own,
      // and reusing a socket the server is closing that moment is a reset no server can avoid.
      this.agents.set(target, new Agent({ keepAlive: true, maxSockets: 64, timeout: 4000 }));
    }
    this.codes = [...options.expected.keys()];
    this.result = {
      sent: 0,
      skipped: 0,
      served: new Map(this.codes.map((code) => [code, 0])),
      servedTotal: 0,
      outcomes: new Map(),
      failovers: 0,
      failures: [],
      latencies: [],
      startedAt: Date.now(),
      endedAt: 0,
    };
    this.done = this.run();
  }

  /** The requests to one target still waiting for an answer, now. */
  inFlightTo(target: string): Attempt[] {
    return [...this.pending].filter((attempt) => attempt.target === target);
  }

  /** Ends the run early (it always ends by itself after durationMs). */
  stop(): Promise<LoadResult> {
    this.stopped = true;
    return this.done;
  }

  /** Served so far, for pacing a scenario on progress. */
  get servedSoFar(): number {
    return this.result.servedTotal;
  }

  private async run(): Promise<LoadResult> {
    const { ratePerSecond, durationMs, maxInFlight = 512 } = this.options;
    const total = Math.floor((ratePerSecond * durationMs) / 1000);
    const began = Date.now();
    const answers: Promise<void>[] = [];
    let issued = 0;
    while (issued < total && !this.stopped) {
      const elapsed = Date.now() - began;
      if (elapsed >= durationMs) break;
      const due = Math.min(total, Math.floor((elapsed * ratePerSecond) / 1000)) - issued;
      for (let i = 0; i < due; i += 1) {
        issued += 1;
        if (this.pending.size >= maxInFlight) {
          this.result.skipped += 1;
          continue;
        }
        answers.push(this.send());
      }
      await sleep(TICK_MS);
    }
    await Promise.all(answers);
    for (const agent of this.agents.values()) agent.destroy();
    this.result.endedAt = Date.now();
    return this.result;
  }

  private async send(): Promise<void> {
    const code = this.codes[this.next % this.codes.length]!;
    const first = this.options.targets[this.next % this.options.targets.length]!;
    this.next += 1;
    this.result.sent += 1;
    const sentAt = performance.now();
    let outcome = await this.attempt(first, code);
    if (typeof outcome === 'string' && outcome.startsWith('E') && this.options.failover) {
      const others = this.options.targets.filter((target) => target !== first);
      const second = others[this.next % Math.max(others.length, 1)];
      if (second) {
        this.result.failovers += 1;
        outcome = await this.attempt(second, code);
      }
    }
    const key = String(outcome);
    this.result.outcomes.set(key, (this.result.outcomes.get(key) ?? 0) + 1);
    if (outcome === 302) {
      this.result.served.set(code, (this.result.served.get(code) ?? 0) + 1);
      this.result.servedTotal += 1;
    }
    if (typeof outcome === 'number' || outcome === 'wrong-location') {
      this.result.latencies.push({ at: Date.now(), ms: performance.now() - sentAt });
    }
  }

  private attempt(target: string, code: string): Promise<Attempt['outcome']> {
    const attempt: Attempt = { target, code, startedAt: Date.now() };
    this.pending.add(attempt);
    return new Promise<Attempt['outcome']>((resolve) => {
      const req = request(
        `${target}/r/${code}`,
        { agent: this.agents.get(target), timeout: this.options.timeoutMs ?? 10_000 },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const { location } = res.headers;
            const right = this.options.accepts
              ? this.options.accepts(code, location)
              : location === this.options.expected.get(code);
            this.options.onAnswer?.({
              target,
              code,
              status,
              location,
              sentAt: attempt.startedAt,
              answeredAt: Date.now(),
            });
            resolve(status === 302 && !right ? 'wrong-location' : status);
          });
          res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EBODY'));
        },
      );
      req.on('timeout', () =>
        req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        const why = error.code ?? 'EUNKNOWN';
        this.result.failures.push({
          at: Date.now(),
          target,
          code: why,
          reused: req.reusedSocket,
          link: code,
        });
        resolve(why);
      });
      req.end();
    }).then((outcome) => {
      attempt.outcome = outcome;
      this.pending.delete(attempt);
      return outcome;
    });
  }
}

/** The q-quantile (0..1) of some latencies, in milliseconds. */
export function quantile(latencies: readonly { ms: number }[], q: number): number {
  if (latencies.length === 0) return 0;
  const sorted = latencies.map((entry) => entry.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
