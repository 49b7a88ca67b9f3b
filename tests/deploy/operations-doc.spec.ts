import fs from 'node:fs';
import path from 'node:path';
import {
  configVariables,
  readRepoFile,
  REPO_ROOT,
  runtimeWorkspaces,
  SERVICES,
  serviceSpec,
} from './support/repo';
import { kafkaTopics, ofKind, render } from './support/kubernetes';
import { guidePage, guideText, section } from './support/guide';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IConfigMap } from 'kubernetes-models/v1';

/** Names of the Prometheus metrics the services register (prom-client constructors). */
function metricNames(): string[] {
  // The services and every workspace package they run with (the chassis and its parts).
  const folders = [...new Set(SERVICES.flatMap(runtimeWorkspaces))].map(
    (folder) => `${folder}/src`,
  );
  const names = new Set<string>();
  for (const folder of folders) {
    const files = fs.readdirSync(path.join(REPO_ROOT, folder), {
      recursive: true,
      encoding: 'utf8',
    });
    for (const file of files.filter((name) => name.endsWith('.ts') && !name.endsWith('spec.ts'))) {
      const source = readRepoFile(`${folder}/${file}`);
      for (const match of source.matchAll(
        /new (?:Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\{\s*name:\s*'([a-z_:][a-z0-9_:]*)'/g,
      )) {
        names.add(match[1]!);
      }
    }
  }
  return [...names].sort();
}

describe('the operations guide (docs/operations.md and its pages)', () => {
  const doc = guideText();

  it('documents every environment variable a service reads', () => {
    const variables = [...new Set(SERVICES.flatMap(configVariables))].sort();
    expect(variables.length).toBeGreaterThan(0);
    expect(variables.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('lists in its configuration table only variables a service still reads', () => {
    const listed = [...guidePage('configuration').matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map(
      (match) => match[1]!,
    );
    expect(listed.length).toBeGreaterThan(0);
    const read = new Set(SERVICES.flatMap(configVariables));
    expect(listed.filter((name) => !read.has(name))).toEqual([]);
  });

  it('explains every metric the services export', () => {
    const metrics = metricNames();
    expect(metrics).toEqual(
      expect.arrayContaining(['http_request_duration_seconds', 'redirects_total']),
    );
    expect(metrics.filter((name) => !doc.includes(`\`${name}`))).toEqual([]);
  });

  it('gives the topics’ partition counts only as k8s/kafka declares them', () => {
    const declared = new Set([...kafkaTopics().values()].map((topic) => topic.spec.partitions));
    const written = [
      ...doc.matchAll(/(\d+)(?: or more)? partitions|partitions:? (\d+)|--partitions (\d+)/g),
    ].map((match) => Number(match[1] ?? match[2] ?? match[3]));
    expect(written.filter((count) => !declared.has(count))).toEqual([]);
  });

  it('names in its network policy table who reaches each datastore, as services/services.json does', () => {
    const rows = [
      ...guidePage('network-policies').matchAll(
        /^\| ([^|]+?) +\| (PostgreSQL|Redis|Kafka)\b[^|]*\|/gm,
      ),
    ];
    const listed = Object.fromEntries(
      rows.map((match) => [match[2]!, match[1]!.split(/,\s*/).sort()]),
    );
    const users = (server: 'postgres' | 'redis' | 'kafka') =>
      SERVICES.filter((name) => serviceSpec(name).servers.includes(server));
    expect(listed).toEqual({
      PostgreSQL: [...users('postgres'), 'migrate'].sort(),
      Redis: users('redis').sort(),
      Kafka: users('kafka').sort(),
    });
  });

  describe('against the manifests', () => {
    const overlays = ['dev', 'production'].map(render);
    const production = overlays[1]!;

    it('gives the grace periods the Deployments have: the services’, and the frontend’s', () => {
      const grace = (name: string) =>
        ofKind<IDeployment>(production, 'Deployment').find(
          (deployment) => deployment.metadata.name === name,
        )?.spec?.template.spec?.terminationGracePeriodSeconds;
      const written =
        /`terminationGracePeriodSeconds: (\d+)`\s+for the services[^,]*, (\d+) for\s+the frontend/.exec(
          doc,
        );
      expect(written?.slice(1).map(Number)).toEqual([grace(SERVICES[0]!), grace('frontend')]);
      expect(new Set(SERVICES.map(grace)).size).toBe(1);
    });

    it('names as the ConfigMap’s values exactly the keys the overlays’ ConfigMaps have', () => {
      const paragraph =
        /In Kubernetes the ConfigMap `shortener-config` holds([\s\S]*?)\. Secrets/.exec(doc)?.[1];
      const written = [...(paragraph ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(
        (match) => match[1],
      );
      const keys = overlays.flatMap((objects) =>
        ofKind<IConfigMap>(objects, 'ConfigMap').flatMap((configMap) =>
          Object.keys(configMap.data ?? {}),
        ),
      );
      expect([...new Set(written)].sort()).toEqual([...new Set(keys)].sort());
    });

    it('creates in its Secret example every key a production pod needs, and lists every key they mount', () => {
      /** The keys of shortener-secrets the pods mount, and whether the pod needs each. */
      const mounted = new Map<string, boolean>();
      const visit = (value: unknown): void => {
        if (Array.isArray(value)) return value.forEach(visit);
        if (typeof value !== 'object' || value === null) return;
        const { name, secretName, items, optional } = value as Record<string, unknown>;
        if (
          (name === 'shortener-secrets' || secretName === 'shortener-secrets') &&
          Array.isArray(items)
        ) {
          for (const { key } of items as { key: string }[]) {
            mounted.set(key, (mounted.get(key) ?? false) || optional !== true);
          }
        }
        Object.values(value).forEach(visit);
      };
      visit(production);
      const overlay = section(guidePage('deploy'), 'The production overlay');
      expect(overlay).not.toBe('');
      const created = [...overlay.matchAll(/--from-literal=([A-Z_]+)=/g)].map((match) => match[1]);
      const listed = [...overlay.matchAll(/^ *\| `([A-Z_]+)` +\|/gm)].map((match) => match[1]);
      const needed = [...mounted].filter(([, required]) => required).map(([key]) => key);
      expect(needed.filter((key) => !created.includes(key))).toEqual([]);
      expect(listed.sort()).toEqual([...mounted.keys()].sort());
    });
  });
});
