import { parse } from 'yaml';
import { shortLinkApi } from '@shortener/contracts';
import { ofKind, render, renderFolder, renderWithComponent } from './support/kubernetes';
import { readRepoFile } from './support/repo';

// What issue 38's item 3 and the backups of item 6 add, as an operator deploys them: the /r/
// SLO's recording rules, burn-rate alerts and dashboard in the production overlay with the
// monitoring component, the lag in seconds, and k8s/postgres's CloudNativePG cluster with its
// scheduled backups, whose freshness the component's alerts watch. The rules' behaviour is
// alerts.test.yml's (promtool, tests/deploy/alerts.spec.ts); this reads what is shipped.

const MONITORING = 'k8s/components/monitoring';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

const shipped = renderWithComponent('production', MONITORING);
const [prometheusRule] = ofKind<{ spec: { groups: Array<{ rules: Rule[] }> } }>(
  shipped,
  'PrometheusRule',
);
const rules = prometheusRule!.spec.groups.flatMap((group) => group.rules);
const records = new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : [])));
const [dashboardMap] = ofKind<{ data: Record<string, string> }>(shipped, 'ConfigMap').filter(
  (map) => map.metadata.labels?.['grafana_dashboard'] === '1',
);
const panels = Object.values(dashboardMap!.data).flatMap(
  (json) => (JSON.parse(json) as { panels: Panel[] }).panels,
);

/** The recorded SLO series a query reads. */
const recordedNames = (expr: string) => [...expr.matchAll(/\bslo:[a-z0-9_:]+/g)].map(([n]) => n);

/** The objectives: the error budget each burn rate is a multiple of. */
const BUDGETS = { availability: '0.001', latency: '0.01' } as const;
const ALERTS = {
  availability: 'RedirectErrorBudgetBurn',
  latency: 'RedirectLatencyBudgetBurn',
} as const;

describe('the /r/ SLOs in the production overlay with the monitoring component', () => {
  it('records each objective at the windows its alerts read, and over 30 days', () => {
    for (const slo of ['availability', 'latency'] as const) {
      for (const window of ['5m', '30m', '1h', '6h', '30d']) {
        expect(records).toContain(`slo:redirect_${slo}_errors:ratio_rate${window}`);
      }
    }
    // Every recorded series an alert or a panel reads is one the rules record.
    const read = [
      ...rules.map((rule) => rule.expr),
      ...panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
    ].flatMap(recordedNames);
    expect(read.length).toBeGreaterThan(0);
    expect([...new Set(read)].filter((name) => !records.has(name))).toEqual([]);
  });

  it('alerts on each in the multi-window form: 1h and 5m at 14.4x (critical), 6h and 30m at 6x (warning)', () => {
    for (const slo of ['availability', 'latency'] as const) {
      const burns = rules.filter((rule) => rule.alert === ALERTS[slo]);
      const found = burns.map((rule) => ({
        window: rule.labels?.['window'],
        severity: rule.labels?.['severity'],
        windows: recordedNames(rule.expr)
          .filter((name) => name.includes('_errors:'))
          .map((name) => name.replace(/.*ratio_rate/, ''))
          .sort(),
        factors: [...rule.expr.matchAll(/> \(([\d.]+) \* ([\d.]+)\)/g)].map(
          ([, factor, budget]) => `${factor}x${budget}`,
        ),
      }));
      expect(found).toEqual([
        {
          window: '1h',
          severity: 'critical',
          windows: ['1h', '5m'],
          factors: [`14.4x${BUDGETS[slo]}`, `14.4x${BUDGETS[slo]}`],
        },
        {
          window: '6h',
          severity: 'warning',
          windows: ['30m', '6h'],
          factors: [`6x${BUDGETS[slo]}`, `6x${BUDGETS[slo]}`],
        },
      ]);
      // Silent below 1,000 requests in the long window: a few requests cannot judge 99.9%.
      for (const rule of burns) {
        expect(rule.expr).toMatch(
          new RegExp(`slo:redirect_requests:increase${rule.labels?.['window']} >= 1000`),
        );
      }
    }
  });

  it("reads the redirect's own histogram: its /r/ route label and a 25 ms bucket it has", () => {
    // The redirect labels every short-link request with its contract entry's path.
    expect(readRepoFile('services/redirect/src/metrics.ts')).toMatch(
      /SHORT_LINK_ROUTE = shortLinkApi\.followShortLink\.path;/,
    );
    const buckets = /buckets: \[([^\]]+)\]/.exec(readRepoFile('packages/chassis/src/metrics.ts'));
    expect(shortLinkApi.followShortLink.path).toBe('/r/{code}');
    expect(buckets?.[1]?.split(',').map(Number)).toContain(0.025);
    const raw = rules.filter(
      (rule) =>
        rule.record?.startsWith('slo:') && rule.expr.includes('http_request_duration_seconds'),
    );
    expect(raw.length).toBeGreaterThan(0);
    for (const rule of raw) {
      expect(rule.expr).toContain('service="redirect", route="/r/{code}"');
      if (rule.expr.includes('_bucket')) expect(rule.expr).toContain('le="0.025"');
    }
  });

  it('shows the attainment, the budget left, the burn rates and the lag in seconds on the dashboard', () => {
    const reads = (title: RegExp, what: RegExp) =>
      panels.some(
        (panel) =>
          title.test(panel.title) && (panel.targets ?? []).some(({ expr }) => what.test(expr)),
      );
    expect(reads(/attainment/i, /slo:redirect_availability_errors:ratio_rate30d/)).toBe(true);
    expect(reads(/attainment/i, /slo:redirect_latency_errors:ratio_rate30d/)).toBe(true);
    expect(reads(/budget remaining/i, /ratio_rate30d\{[^}]*\} \/ 0\.001/)).toBe(true);
    expect(reads(/budget remaining/i, /ratio_rate30d\{[^}]*\} \/ 0\.01/)).toBe(true);
    expect(reads(/burn rate/i, /ratio_rate1h/)).toBe(true);
    expect(reads(/burn rate/i, /ratio_rate6h/)).toBe(true);
    expect(reads(/lag in seconds/i, /analytics_consumer_lag_seconds/)).toBe(true);
  });

  it('alerts on the lag in seconds, and names a runbook page for each new alert', () => {
    const lag = rules.find((rule) => rule.alert === 'ConsumerLagHigh');
    expect(lag?.expr).toContain('analytics_consumer_lag_seconds{topic="visits"}');
    const added = [
      ...Object.values(ALERTS),
      'ConsumerLagHigh',
      'PostgresBackupStale',
      'PostgresWALArchivingStale',
    ];
    for (const name of added) {
      const mine = rules.filter((rule) => rule.alert === name);
      expect(mine.length).toBeGreaterThan(0);
      for (const rule of mine) {
        expect(rule.annotations?.['runbook_url']).toBe(`docs/runbooks/${name.toLowerCase()}.md`);
      }
    }
  });
});

interface Cluster {
  spec: {
    instances: number;
    plugins?: Array<{
      name: string;
      isWALArchiver?: boolean;
      parameters?: Record<string, string>;
    }>;
  };
}
interface ScheduledBackup {
  spec: {
    schedule: string;
    method: string;
    cluster: { name: string };
    pluginConfiguration?: { name: string };
  };
}

const DAYS: Record<string, number> = { d: 1, w: 7, m: 30 };

describe('k8s/postgres: the PostgreSQL the services use, backed up', () => {
  const objects = renderFolder('k8s/postgres');
  const [cluster] = ofKind<Cluster>(objects, 'Cluster');
  const [store] = ofKind<{ spec: { retentionPolicy?: string } }>(objects, 'ObjectStore');
  const backups = ofKind<ScheduledBackup>(objects, 'ScheduledBackup');

  it('is the cluster the production overlay lets the services reach', () => {
    expect(cluster?.metadata).toMatchObject({ name: 'shortener-pg', namespace: 'databases' });
    const policies = JSON.stringify(
      render('production').filter((object) => object.kind === 'NetworkPolicy'),
    );
    expect(policies).toContain(`"cnpg.io/cluster":"${cluster!.metadata.name}"`);
    expect(policies).toContain(`"kubernetes.io/metadata.name":"${cluster!.metadata.namespace}"`);
  });

  it('archives its WAL and keeps its backups longer than Kafka keeps visits', () => {
    const archiver = cluster!.spec.plugins?.find((plugin) => plugin.isWALArchiver);
    expect(archiver?.name).toBe('barman-cloud.cloudnative-pg.io');
    expect(store?.metadata.name).toBe(archiver?.parameters?.['barmanObjectName']);
    const retention = /^(\d+)([dwm])$/.exec(store?.spec.retentionPolicy ?? '');
    expect(retention).not.toBeNull();
    const keptDays = Number(retention![1]) * DAYS[retention![2]!]!;
    const topics = parse(readRepoFile('k8s/kafka/kafka-topics.yaml').split('\n---\n')[0]!) as {
      spec: { config: Record<string, number> };
    };
    const visitsDays = topics.spec.config['retention.ms']! / 86_400_000;
    expect(keptDays).toBeGreaterThan(visitsDays);
  });

  it('takes a base backup daily with the plugin, more often than PostgresBackupStale allows', () => {
    expect(backups).toHaveLength(1);
    const backup = backups[0]!.spec;
    expect(backup).toMatchObject({
      method: 'plugin',
      cluster: { name: cluster!.metadata.name },
      pluginConfiguration: { name: 'barman-cloud.cloudnative-pg.io' },
    });
    // Six fields, seconds first: one time of day, every day.
    const fields = backup.schedule.split(' ');
    expect(fields).toHaveLength(6);
    expect(fields.slice(0, 3).every((field) => /^\d+$/.test(field))).toBe(true);
    expect(fields.slice(3)).toEqual(['*', '*', '*']);
    const stale = rules.find((rule) => rule.alert === 'PostgresBackupStale');
    const hours = /> (\d+) \* 3600/.exec(stale?.expr ?? '');
    expect(Number(hours?.[1])).toBeGreaterThan(24);
  });

  it('is scraped with its name as cnpg_io_cluster, the label the backup alerts group by', () => {
    const [monitor] = ofKind<{
      spec: {
        selector: { matchLabels: Record<string, string> };
        podTargetLabels: string[];
        podMetricsEndpoints: Array<{ port: string }>;
      };
    }>(objects, 'PodMonitor');
    expect(monitor?.spec.selector.matchLabels).toEqual({
      'cnpg.io/cluster': cluster!.metadata.name,
    });
    expect(monitor?.spec.podTargetLabels).toEqual(['cnpg.io/cluster']);
    expect(monitor?.spec.podMetricsEndpoints).toEqual([{ port: 'metrics' }]);
    for (const name of ['PostgresBackupStale', 'PostgresWALArchivingStale']) {
      expect(rules.find((rule) => rule.alert === name)?.expr).toContain('cnpg_io_cluster');
    }
  });
});
