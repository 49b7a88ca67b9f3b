import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort, REPO_ROOT, waitFor, type ServiceProcess } from '@shortener/testkit';

/** Debian's Prometheus (package `prometheus`, which scripts/test.mjs installs when missing). */
export const PROMETHEUS = process.env['PROMETHEUS_PATH'] ?? '/usr/bin/prometheus';

/** The shipped rules file: the one copy of the alerts (k8s/components/monitoring). */
export const SHIPPED_RULES = path.join(REPO_ROOT, 'k8s', 'components', 'monitoring', 'alerts.yml');

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** A Prometheus duration of one unit ("2m", "15m", "1h") in seconds; anything else throws. */
function seconds(duration: string): number {
  const match = /^(\d+)([smhdw])$/.exec(duration);
  if (!match) throw new Error(`cannot scale the duration "${duration}"`);
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}

function scaled(duration: string, factor: number): string {
  return `${Math.max(1, Math.round(seconds(duration) / factor))}s`;
}

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
}

/**
 * The shipped rules with time running `factor` times faster: every `for:` and every range
 * in an expression ([2m], [15m]) divided by it, nothing else touched. The shipped alerts wait
 * minutes, as they should in production; a test cannot, and a hand-made copy could drift
 * from what ships.
 */
export function fasterRules(factor: number): { yaml: string; alerts: string[] } {
  const file = parse(readFileSync(SHIPPED_RULES, 'utf8')) as {
    groups: { name: string; rules: Rule[] }[];
  };
  const alerts: string[] = [];
  for (const group of file.groups) {
    for (const rule of group.rules) {
      if (rule.alert) alerts.push(rule.alert);
      if (rule.for !== undefined) rule.for = scaled(rule.for, factor);
      rule.expr = rule.expr.replace(
        /\[(\w+)\]/g,
        (_, range: string) => `[${scaled(range, factor)}]`,
      );
    }
  }
  return { yaml: stringify(file), alerts };
}

export interface ActiveAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
}

export interface PrometheusServer {
  url: string;
  /** The alerts pending or firing now (GET /api/v1/alerts): a resolved one is not listed. */
  alerts(): Promise<ActiveAlert[]>;
  /** An instant query's value (its first series'), or undefined when it has none. */
  query(expr: string): Promise<number | undefined>;
  /** The alerting rules Prometheus loaded, by name. */
  ruleNames(): Promise<string[]>;
  /** Each target's health at its last scrape ('up', 'down', 'unknown' before the first). */
  targets(): Promise<{ pod: string; health: string; lastError: string }[]>;
  stop(): Promise<void>;
  output(): string;
}

/**
 * Debian's Prometheus on a free loopback port, scraping the given services' /metrics every
 * `intervalSeconds` and evaluating `rules` (YAML) as often, each target labelled as a pod
 * is in Kubernetes (namespace, pod, job: the service's name), so the rules read the same.
 */
export async function startPrometheus(options: {
  services: readonly ServiceProcess[];
  rules: string;
  intervalSeconds?: number;
}): Promise<PrometheusServer> {
  const folder = mkdtempSync(path.join(tmpdir(), 'prometheus-'));
  const interval = `${options.intervalSeconds ?? 1}s`;
  const rulesFile = path.join(folder, 'alerts.yml');
  writeFileSync(rulesFile, options.rules);
  const config = {
    global: { scrape_interval: interval, evaluation_interval: interval, scrape_timeout: interval },
    rule_files: [rulesFile],
    // A job per service, named for it, as the PodMonitor's jobLabel makes it (ServiceDown
    // reads `up` by job).
    scrape_configs: [...new Set(options.services.map((service) => service.name))].map((job) => ({
      job_name: job,
      static_configs: options.services
        .filter((service) => service.name === job)
        .map((service) => ({
          targets: [new URL(service.opsUrl).host],
          labels: { namespace: 'local', pod: `${service.name}-${service.port}` },
        })),
    })),
  };
  const configFile = path.join(folder, 'prometheus.yml');
  writeFileSync(configFile, stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));

  const api = async <T>(route: string): Promise<T> => {
    const response = await fetch(`${url}${route}`);
    const body = (await response.json()) as { status: string; data: T };
    if (body.status !== 'success') throw new Error(`${route}: ${JSON.stringify(body)}`);
    return body.data;
  };
  const server: PrometheusServer = {
    url,
    alerts: async () => (await api<{ alerts: ActiveAlert[] }>('/api/v1/alerts')).alerts,
    query: async (expr) => {
      const { result } = await api<{ result: { value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      return result[0] === undefined ? undefined : Number(result[0].value[1]);
    },
    ruleNames: async () =>
      (
        await api<{ groups: { rules: { name: string; type: string }[] }[] }>(
          '/api/v1/rules?type=alert',
        )
      ).groups.flatMap((group) => group.rules.map((rule) => rule.name)),
    targets: async () => {
      const { activeTargets } = await api<{
        activeTargets: { labels: Record<string, string>; health: string; lastError: string }[];
      }>('/api/v1/targets?state=active');
      return activeTargets.map((target) => ({
        pod: target.labels['pod'] ?? '',
        health: target.health,
        lastError: target.lastError,
      }));
    },
    stop: async () => {
      if (!gone) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
    output: () => output,
  };
  try {
    await waitFor(
      async () => {
        if (gone) throw new Error(`prometheus exited:\n${output}`);
        return (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok === true;
      },
      { what: 'Prometheus ready', timeoutMs: 30_000, intervalMs: 200 },
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/**
 * The alert drills' Prometheus: the shipped rules `speed` times faster, scraping each of
 * `services` every second. Resolves once every shipped alert is loaded (Prometheus refuses a
 * rules file it cannot parse) and every target is up; stopped again if not.
 */
export async function startDrillPrometheus(
  services: readonly ServiceProcess[],
  speed: number,
): Promise<PrometheusServer> {
  const rules = fasterRules(speed);
  const server = await startPrometheus({ services, rules: rules.yaml, intervalSeconds: 1 });
  try {
    expect((await server.ruleNames()).sort()).toEqual([...rules.alerts].sort());
    await waitFor(
      async () => {
        const all = await server.targets();
        return all.length === services.length && all.every((target) => target.health === 'up');
      },
      {
        what: `Prometheus scraping the ${services.length} instances`,
        timeoutMs: 20_000,
        intervalMs: 500,
      },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(await server.targets())}`);
    });
    return server;
  } catch (error) {
    await server.stop();
    throw error;
  }
}
