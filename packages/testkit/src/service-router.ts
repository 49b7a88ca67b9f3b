import { connect, createServer, type Server, type Socket } from 'node:net';
import { splice } from './proxy';

/**
 * How long a probe may take, and how many may fail in a row: as our manifests' readiness
 * probes have it (timeoutSeconds: 2, twice what a round of checks can take, chassis
 * readiness.ts), failing after three as the kubelet's default.
 */
const PROBE_TIMEOUT_MS = 2000;
const FAILURE_THRESHOLD = 3;

/** An instance a router may send connections to: where it answers, and its /readyz. */
export interface RoutedInstance {
  port: number;
  /** The URL of its /readyz (the ops port's, or its own port's). */
  readyUrl: string;
}

/**
 * What a Kubernetes Service does for the tests that need one: a TCP address in front of a
 * service's instances that sends each new connection to a ready instance, and refuses it
 * (closes it at once) when none is. Readiness as a kubelet probes it: /readyz every
 * `probeMs`, ready after one 200, not ready after three failed probes in a row. Connections already open stay where they are, as with kube-proxy.
 */
export class ServiceRouter {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly ready = new Set<number>();
  /** Failed probes in a row, per instance port. */
  private readonly failures = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  port = 0;
  /** Connections refused because no instance was ready. */
  refused = 0;
  /** Each failed probe: when, which port, and what it got. */
  readonly failedProbes: string[] = [];

  constructor(
    private readonly instances: () => readonly RoutedInstance[],
    private readonly probeMs = 500,
  ) {}

  async listen(): Promise<this> {
    await this.probe();
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    const loop = (): void => {
      this.timer = setTimeout(() => void this.probe().finally(loop), this.probeMs);
    };
    loop();
    return this;
  }

  /** How many instances answered their last readiness probe with 200. */
  get readyInstances(): number {
    return this.instances().filter(({ port }) => this.ready.has(port)).length;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  private async probe(): Promise<void> {
    await Promise.all(
      this.instances().map(async ({ port, readyUrl }) => {
        const started = Date.now();
        const outcome = await fetch(readyUrl, {
          signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        }).then(
          async (response) => (response.ok ? 'ok' : `${response.status} ${await response.text()}`),
          (error: Error) =>
            `${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}`,
        );
        const ok = outcome === 'ok';
        if (!ok) {
          this.failedProbes.push(
            `${new Date(started).toISOString()} :${port} after ${Date.now() - started} ms: ${outcome}`,
          );
        }
        const failures = ok ? 0 : (this.failures.get(port) ?? 0) + 1;
        this.failures.set(port, failures);
        if (ok) this.ready.add(port);
        else if (failures >= FAILURE_THRESHOLD) this.ready.delete(port);
      }),
    );
  }

  private accept(client: Socket): void {
    const ready = this.instances().filter(({ port }) => this.ready.has(port));
    if (ready.length === 0) {
      this.refused++;
      client.destroy();
      return;
    }
    const target = ready[this.next++ % ready.length]!;
    splice(client, connect(target.port, '127.0.0.1'), this.sockets);
  }
}
