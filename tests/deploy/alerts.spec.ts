import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IJob } from 'kubernetes-models/batch/v1';
import {
  ofKind,
  render,
  renderWithComponent,
  selects,
  type LabelSelector,
  type Manifest,
} from './support/kubernetes';
import { REPO_ROOT, repoPathExists, SERVICES } from './support/repo';
import { guideText, RUNBOOKS_DIR } from './support/guide';

// The alert rules (k8s/components/monitoring/alerts.yml) checked and unit-tested with the real
// promtool (Debian's prometheus package; npm test installs it when missing), the dashboard's
// queries checked by it too, and both shipped for the Prometheus Operator and Grafana.

const FOLDER = 'k8s/components/monitoring';
const RULES = path.join(REPO_ROOT, FOLDER, 'alerts.yml');
const DASHBOARD = path.join(REPO_ROOT, FOLDER, 'dashboard.json');
const TESTS = path.join(REPO_ROOT, FOLDER, 'alerts.test.yml');

interface AlertRule {
  alert: string;
  /** A recording rule's series (then no alert): the SLO's ratios. */
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: Array<{ name: string; rules: AlertRule[] }>;
}
interface RuleTests {
  tests: Array<{
    name: string;
    /** None in a test of recorded series only (promql_expr_test). */
    alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }>;
  }>;
}

/** The part of a Prometheus Operator PodMonitor these tests read. */
type PodMonitor = Manifest & {
  spec: {
    jobLabel?: string;
    selector: LabelSelector;
    namespaceSelector?: unknown;
    podMetricsEndpoints: Array<{ port: string; path?: string }>;
  };
};

interface Dashboard {
  uid: string;
  panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
}
const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as Dashboard;
/** Each panel's queries, with Grafana's variables as a Prometheus would get them. */
const dashboardQueries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({
    panel: panel.title,
    expr: target.expr.replaceAll('$__rate_interval', '1m').replaceAll('$namespace', '.*'),
  })),
);

const rules = parse(fs.readFileSync(RULES, 'utf8')) as RuleFile;
const alerts = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert);
/** Alert names, once each: an SLO alert has a rule per window pair. */
const alertNames = [...new Set(alerts.map((rule) => rule.alert))];
const unitTests = parse(fs.readFileSync(TESTS, 'utf8')) as RuleTests;

function promtool(args: string[], cwd = REPO_ROOT): { status: number; output: string } {
  const result = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  const error: NodeJS.ErrnoException | undefined = result.error;
  if (error?.code === 'ENOENT') {
    throw new Error(
      'promtool is not installed: the alert tests run it (Debian: apt-get install prometheus; ' +
        'npm test installs it when run as root)',
    );
  }
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

/**
 * promtool test rules against a copy of the rules with one alert changed, on the unit tests
 * that check that alert: no rule reads another's alerts (ALERTS), so the others' tests cannot
 * tell the change, and each run takes a second or two instead of all tests' twelve.
 */
function testWithAlert(name: string, expr: string): { status: number; output: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'alerts-'));
  try {
    const changed: RuleFile = {
      groups: rules.groups.map((group) => ({
        ...group,
        rules: group.rules.map((rule) => (rule.alert === name ? { ...rule, expr } : rule)),
      })),
    };
    fs.writeFileSync(path.join(folder, 'alerts.yml'), stringify(changed));
    const checking = unitTests.tests.filter((test) =>
      test.alert_rule_test?.some((check) => check.alertname === name),
    );
    fs.writeFileSync(
      path.join(folder, 'alerts.test.yml'),
      stringify({ ...unitTests, tests: checking }),
    );
    return promtool(['test', 'rules', 'alerts.test.yml'], folder);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    const { status, output } = promtool(['check', 'rules', RULES]);
    expect(output).toContain('SUCCESS');
    expect({ status, output }).toMatchObject({ status: 0 });
  });

  it('pass their unit tests (promtool test rules)', () => {
    const { status, output } = promtool(['test', 'rules', TESTS]);
    expect(output).toContain('SUCCESS');
    expect({ status, output }).toMatchObject({ status: 0 });
  });

  it('cover what the operations guide says to alert on', () => {
    expect([...alertNames].sort()).toEqual(
      [
        'ConsumerLagGrowing',
        'ConsumerLagHigh',
        'PostgresBackupStale',
        'PostgresWALArchivingStale',
        'RedirectErrorBudgetBurn',
        'RedirectLatencyBudgetBurn',
        'DependencyDown',
        'HighErrorRate',
        'PodsNotReady',
        'RedirectLatencyHigh',
        'RedirectsUnavailable',
        'ServiceDown',
        'VisitQueueGrowing',
        'VisitSpoolFilling',
        'VisitsDeadLettered',
        'VisitsDropped',
      ].sort(),
    );
  });

  it('each have a unit test where they fire and one where they stay silent', () => {
    const problems: string[] = [];
    for (const alert of alertNames) {
      const cases = unitTests.tests.flatMap((test) =>
        (test.alert_rule_test ?? []).filter((check) => check.alertname === alert),
      );
      if (!cases.some((check) => check.exp_alerts.length > 0))
        problems.push(`${alert}: never fires`);
      if (!cases.some((check) => check.exp_alerts.length === 0)) {
        problems.push(`${alert}: never checked silent`);
      }
    }
    expect(problems).toEqual([]);
  });

  // What lets testWithAlert run only the changed alert's tests.
  it('read no alert state (ALERTS), so only its own tests can tell an alert changed', () => {
    expect(
      rules.groups.flatMap((group) => group.rules).filter((rule) => /\bALERTS/.test(rule.expr)),
    ).toEqual([]);
  });

  // The unit tests must be able to fail: each alert's tests catch it firing always and never.
  it.each(alertNames)('each have unit tests that fail when %s fires always or never', (alert) => {
    expect(testWithAlert(alert, 'vector(1)').status).not.toBe(0);
    expect(testWithAlert(alert, 'vector(1) < 0').status).not.toBe(0);
  });

  it('each carry a severity, a summary, a description and a runbook page of the guide', () => {
    const problems: string[] = [];
    for (const rule of alerts) {
      if (!['critical', 'warning'].includes(rule.labels?.['severity'] ?? '')) {
        problems.push(`${rule.alert}: severity is not critical or warning`);
      }
      for (const field of ['summary', 'description']) {
        if (!rule.annotations?.[field]) problems.push(`${rule.alert}: no ${field}`);
      }
      const runbook = rule.annotations?.['runbook_url'] ?? '';
      if (
        runbook !== `${RUNBOOKS_DIR}/${rule.alert.toLowerCase()}.md` ||
        !repoPathExists(runbook)
      ) {
        problems.push(`${rule.alert}: runbook ${runbook || 'missing'} is no page of the guide`);
      }
    }
    expect(problems).toEqual([]);
  });
});

/** The metric names a query reads (identifiers followed by a selector, range or grouping). */
function metricNames(expr: string): string[] {
  const functions =
    /^(sum|min|max|avg|rate|increase|delta|deriv|histogram_quantile|by|on|and|or|without|group_left|min_over_time|max_over_time|label_values)$/;
  return [...expr.matchAll(/([a-z_:][a-z0-9_:]*)\s*[{[]/g)]
    .map(([, name]) => name!)
    .filter((name) => !functions.test(name));
}

describe('dashboard', () => {
  it('has panels, each with at least one query', () => {
    const timeseries = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(timeseries.length).toBeGreaterThan(0);
    expect(
      timeseries.filter((panel) => !panel.targets?.length).map((panel) => panel.title),
    ).toEqual([]);
  });

  it('asks only queries promtool can parse', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-'));
    try {
      const asRules = {
        groups: [
          {
            name: 'dashboard',
            rules: dashboardQueries.map(({ expr }, i) => ({
              record: `dashboard:query_${i}`,
              expr,
            })),
          },
        ],
      };
      fs.writeFileSync(path.join(folder, 'queries.yml'), stringify(asRules));
      const { status, output } = promtool(['check', 'rules', 'queries.yml'], folder);
      expect(output).toContain(`SUCCESS: ${dashboardQueries.length} rules found`);
      expect(status).toBe(0);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('reads (as the alerts do) only metrics the guide lists, or the exporters it names', () => {
    const guide = guideText();
    // kube-state-metrics, Node's own, CloudNativePG's exporter and its Barman Cloud plugin,
    // and the SLO's series recorded by alerts.yml itself.
    const exporters = /^(kube_pod_|process_|nodejs_|cnpg_|barman_cloud_|slo:)/;
    const exprs = [
      ...dashboardQueries.map(({ panel, expr }) => ({ where: `panel "${panel}"`, expr })),
      ...rules.groups
        .flatMap((group) => group.rules)
        .map((rule) => ({
          where: rule.alert ? `alert ${rule.alert}` : `record ${rule.record}`,
          expr: rule.expr,
        })),
    ];
    const problems = exprs.flatMap(({ where, expr }) =>
      metricNames(expr)
        .map((name) => name.replace(/_(bucket|count|sum)$/, ''))
        .filter((name) => !exporters.test(name) && !guide.includes(`\`${name}`))
        .map((name) => `${where}: ${name}`),
    );
    expect(problems).toEqual([]);
  });
});

describe('k8s/components/monitoring: the rules for the Prometheus Operator', () => {
  it('has its PrometheusRule written from alerts.yml (node scripts/monitoring.mjs)', () => {
    expect(() =>
      execFileSync(process.execPath, ['scripts/monitoring.mjs', '--check'], {
        cwd: REPO_ROOT,
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });

  it('adds to the production overlay only the PodMonitor, the PrometheusRule and the dashboard, in its namespace', () => {
    const production = render('production');
    const objects = renderWithComponent('production', FOLDER);
    const added = objects.filter(
      (object) => !production.some((other) => JSON.stringify(other) === JSON.stringify(object)),
    );
    expect(added.map((object) => `${object.kind} ${object.metadata.namespace}`).sort()).toEqual([
      'ConfigMap shortener',
      'PodMonitor shortener',
      'PrometheusRule shortener',
    ]);
    const [rule] = ofKind<{ spec: RuleFile }>(added, 'PrometheusRule');
    expect(rule?.spec.groups).toEqual(rules.groups);
    // Grafana's sidecar loads ConfigMaps with this label, each file a dashboard.
    const [board] = ofKind<{ data: Record<string, string> }>(added, 'ConfigMap');
    expect(board?.metadata.labels?.['grafana_dashboard']).toBe('1');
    expect(
      Object.values(board?.data ?? {}).map((json) => (JSON.parse(json) as Dashboard).uid),
    ).toEqual([dashboard.uid]);
  });

  it('scrapes every service as deployed: a PodMonitor on the ops port its container declares, no other pod', () => {
    const objects = renderWithComponent('production', FOLDER);
    const monitors = ofKind<PodMonitor>(objects, 'PodMonitor');
    expect(monitors).toHaveLength(1);
    const monitor = monitors[0]!;
    const pods = [
      ...ofKind<IDeployment>(objects, 'Deployment').map((deployment) => ({
        owner: deployment.metadata.name,
        template: deployment.spec!.template,
      })),
      ...ofKind<IJob>(objects, 'Job').map((job) => ({
        owner: job.metadata.name,
        template: job.spec!.template,
      })),
    ];
    const scraped = pods.filter(({ template }) =>
      selects(monitor.spec.selector, template.metadata?.labels),
    );
    // Every service's pods, by the name its metrics carry in their `service` label, as `job`.
    expect(scraped.map(({ owner }) => owner).sort()).toEqual([...SERVICES].sort());
    expect(monitor.spec.jobLabel).toBe('app.kubernetes.io/name');
    const problems = scraped.flatMap(({ owner, template }) => {
      const found: string[] = [];
      if (template.metadata?.labels?.['app.kubernetes.io/name'] !== owner) {
        found.push(`${owner}: job would not be its name`);
      }
      const container = template.spec!.containers.find((candidate) => candidate.name === owner);
      for (const endpoint of monitor.spec.podMetricsEndpoints) {
        if (!container?.ports?.some((port) => port.name === endpoint.port)) {
          found.push(`${owner}: its container declares no port named ${endpoint.port}`);
        }
      }
      return found;
    });
    expect(problems).toEqual([]);
    expect(monitor.spec.podMetricsEndpoints).toEqual([
      expect.objectContaining({ port: 'ops', path: '/metrics' }),
    ]);
    // Pods of the overlay's namespace only: the PodMonitor's own, where the overlay puts it.
    expect(monitor.metadata.namespace).toBe('shortener');
    expect(monitor.spec.namespaceSelector).toBeUndefined();
  });

  it("needs no kube-state-metrics: PodsNotReady reads the pods' own service_ready and up", () => {
    const reads = alerts.flatMap((rule) => metricNames(rule.expr));
    expect(reads.filter((name) => name.startsWith('kube_'))).toEqual([]);
    const rule = alerts.find((candidate) => candidate.alert === 'PodsNotReady')!;
    expect(rule.expr).toMatch(/\bservice_ready\)/);
    expect(metricNames(rule.expr)).toEqual(['up']);
  });
});
