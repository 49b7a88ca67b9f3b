import { setTimeout as sleep } from 'node:timers/promises';
import {
  freePort,
  type ServiceName,
  type ServiceProcess,
  type StackOptions,
} from '@shortener/testkit';
import type { PrometheusServer } from './prometheus';

// What the alert drills share: the pods' ops ports and readiness probes as Kubernetes has
// them, and a watch over Prometheus' alerts that remembers each one seen, by name and labels,
// so that a fault can list the alerts it explains and every other one is a failure.

/**
 * An OPS_PORT for each service, as its pod has one (the `ops` port the PodMonitor scrapes and
 * the kubelet probes): /readyz and /metrics then answer there, and are no requests of the
 * service's own (http_request_duration_seconds), as in production.
 */
export async function opsPorts(
  names: readonly ServiceName[],
): Promise<NonNullable<StackOptions['serviceEnv']>> {
  const env: NonNullable<StackOptions['serviceEnv']> = {};
  for (const name of names) env[name] = { OPS_PORT: String(await freePort()) };
  return env;
}

/** The manifests' readinessProbe (k8s/base/*.yaml): every 5 s, 2 s to answer. */
const PROBE_PERIOD_MS = 5000;
const PROBE_TIMEOUT_MS = 2000;

/**
 * The kubelet's readiness probes: GET /readyz on each pod's ops port every 5 s. Each probe
 * runs the service's readiness round, which sets dependency_up and service_ready (what
 * DependencyDown and PodsNotReady read); without probes those keep their first values.
 */
export function probeReadiness(services: () => readonly ServiceProcess[]): { stop(): void } {
  const stopped = new AbortController();
  void (async () => {
    while (!stopped.signal.aborted) {
      await Promise.all(
        services().map((service) =>
          fetch(`${service.opsUrl}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
            .then((response) => response.arrayBuffer())
            .catch(() => undefined),
        ),
      );
      await sleep(PROBE_PERIOD_MS, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  })();
  return { stop: () => stopped.abort() };
}

/** The pod label a drill's Prometheus gives a service's target (startPrometheus). */
export function podOf(service: ServiceProcess): string {
  return `${service.name}-${service.port}`;
}

/** Labels that do not tell one alert of a name from another here. */
const COMMON = new Set(['alertname', 'severity', 'namespace']);

/**
 * An alert's name and telling labels, sorted: `ServiceDown{job=analytics}`,
 * `DependencyDown{dependency=redis,service=redirect}`, `RedirectsUnavailable`.
 */
export function alertKey(labels: Record<string, string>): string {
  const rest = Object.entries(labels)
    .filter(([name]) => !COMMON.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${value}`);
  return `${labels['alertname']}${rest.length > 0 ? `{${rest.join(',')}}` : ''}`;
}

/** Whether a key is explained by an entry: the same key, or the alert's bare name (any labels). */
function explains(entry: string, key: string): boolean {
  return entry === key || (!entry.includes('{') && key.split('{')[0] === entry);
}

export interface Sighting {
  /** ms since the watch began: first listed (pending or firing), first firing, last listed. */
  pending: number;
  firing: number | undefined;
  last: number;
}

/** Polls Prometheus' alerts every second while asked to wait, remembering every one seen. */
export class AlertWatch {
  readonly seen = new Map<string, Sighting>();
  readonly start = Date.now();

  constructor(private readonly server: PrometheusServer) {}

  /** The alerts listed now (pending or firing), by key and state; each remembered. */
  async poll(): Promise<Map<string, 'pending' | 'firing'>> {
    const now = Date.now() - this.start;
    const listed = new Map<string, 'pending' | 'firing'>();
    for (const alert of await this.server.alerts()) {
      const key = alertKey(alert.labels);
      listed.set(key, listed.get(key) === 'firing' ? 'firing' : alert.state);
      const sighting = this.seen.get(key) ?? { pending: now, firing: undefined, last: now };
      sighting.last = now;
      if (alert.state === 'firing') sighting.firing ??= now;
      this.seen.set(key, sighting);
    }
    return listed;
  }

  /**
   * Polls until `key` is firing (or, `resolved`, no longer listed), or `timeoutMs` passes;
   * resolves with when (Date.now()), or 0 if it did not happen in time.
   */
  async until(key: string, state: 'firing' | 'resolved', timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const listed = await this.poll();
      const now = listed.get(key);
      if (state === 'firing' ? now === 'firing' : now === undefined) return Date.now();
      await sleep(1000);
    }
    return 0;
  }

  /** Polls every second for `ms`. */
  async watch(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      await this.poll();
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
    }
  }

  /**
   * Every alert seen firing that no entry of `explained` explains (see alertKey; a bare name:
   * any labels). One only pending, never firing, was never sent on: silent.
   */
  unexplained(explained: Iterable<string>): string[] {
    const entries = [...explained];
    return [...this.seen]
      .filter(([, sighting]) => sighting.firing !== undefined)
      .map(([key]) => key)
      .filter((key) => !entries.some((entry) => explains(entry, key)));
  }

  /** Every alert seen, with when (s since the watch began) it was pending, firing, last listed. */
  describe(): string {
    const s = (ms: number | undefined) => (ms === undefined ? '-' : (ms / 1000).toFixed(0));
    return (
      [...this.seen]
        .map(([key, { pending, firing, last }]) => `${key} ${s(pending)}/${s(firing)}/${s(last)} s`)
        .join(', ') || 'none'
    );
  }
}
