import fs from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ofKind, render, renderFolder, selects, type Manifest } from './support/kubernetes';
import {
  GUIDE_INDEX,
  guidePage,
  guidePages,
  guideText,
  headingAnchors,
  repoMarkdownFiles,
  runbookPages,
  RUNBOOKS_DIR,
} from './support/guide';
import { configDefault, configVariables, readRepoFile, REPO_ROOT, SERVICES } from './support/repo';

// The operations guide read against what it describes: its pages, links and runbooks; the
// rendered manifests (rollouts, ports, probes, network policies, autoscaling); the Kafka
// users; the services' configuration; and the figures one page takes from another.

type Deployment = Manifest & IDeployment;
type NetworkPolicy = Manifest & INetworkPolicy;

/** At most this per page, so that one reads at 3 a.m. (and renders on GitHub). */
const MAX_PAGE_BYTES = 60 * 1024;

const production = render('production');
const deployments = ofKind<IDeployment>(production, 'Deployment');
const deployment = (name: string): Deployment => {
  const found = deployments.find((candidate) => candidate.metadata.name === name);
  if (!found) throw new Error(`no Deployment ${name} in the production overlay`);
  return found;
};
const mainContainer = (name: string) => deployment(name).spec!.template.spec!.containers[0]!;
const portNamed = (name: string, port: string) =>
  mainContainer(name).ports?.find((candidate) => candidate.name === port)?.containerPort;

interface AlertRule {
  /** Unset for a recording rule. */
  alert?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
type Alert = AlertRule & { alert: string };
const alertsOf = (groups: { rules: AlertRule[] }[]): Alert[] =>
  groups.flatMap((group) => group.rules).filter((rule): rule is Alert => rule.alert !== undefined);
const alertRules = (file: string): Alert[] =>
  alertsOf((parse(readRepoFile(file)) as { groups: { rules: AlertRule[] }[] }).groups);
const alerts = alertRules('k8s/components/monitoring/alerts.yml');

describe('the operations guide', () => {
  it('is pages of at most 60 KB each: an index, a page a subject, a page an alert', () => {
    const pages = guidePages();
    expect(pages).toContain(GUIDE_INDEX);
    expect(runbookPages().length).toBeGreaterThan(0);
    const large = pages
      .map((page) => ({ page, bytes: fs.statSync(path.join(REPO_ROOT, page)).size }))
      .filter(({ bytes }) => bytes > MAX_PAGE_BYTES);
    expect(large).toEqual([]);
  });

  it('leaves no Markdown file of the repository over 60 KB (README, docs, every package)', () => {
    const files = repoMarkdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/reliability.md']));
    const large = files
      .map((file) => ({ file, bytes: fs.statSync(path.join(REPO_ROOT, file)).size }))
      .filter(({ bytes }) => bytes > MAX_PAGE_BYTES);
    expect(large).toEqual([]);
  });

  it('links only to files and headings that exist (every Markdown file: the guide, the docs, the READMEs)', () => {
    const problems: string[] = [];
    for (const source of repoMarkdownFiles()) {
      const text = readRepoFile(source).replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // http:, https:, mailto:
        const [file, anchor] = target!.split('#');
        const resolved = file
          ? path.posix.normalize(path.posix.join(path.posix.dirname(source), file))
          : source;
        const absolute = path.join(REPO_ROOT, resolved);
        if (!fs.existsSync(absolute)) {
          problems.push(`${source}: ${target} (no ${resolved})`);
        } else if (anchor && !headingAnchors(fs.readFileSync(absolute, 'utf8')).has(anchor)) {
          problems.push(`${source}: ${target} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  describe('runbooks', () => {
    it('one page for every alert, named after it, which its runbook_url names (the rules and the PrometheusRule alike)', () => {
      const problems: string[] = [];
      const rendered = parseAllDocuments(
        readRepoFile('k8s/components/monitoring/prometheus-rule.yaml'),
      ).flatMap(
        (document) =>
          (document.toJS() as { spec: { groups: { rules: AlertRule[] }[] } }).spec.groups,
      );
      const renderedRules = alertsOf(rendered);
      for (const rule of [...alerts, ...renderedRules]) {
        const page = `${RUNBOOKS_DIR}/${rule.alert.toLowerCase()}.md`;
        if (rule.annotations?.['runbook_url'] !== page) {
          problems.push(`${rule.alert}: runbook_url ${rule.annotations?.['runbook_url']}`);
        }
        if (!fs.existsSync(path.join(REPO_ROOT, page))) problems.push(`${rule.alert}: no ${page}`);
      }
      expect(alerts.length).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    });

    it('are each an alert’s, with its severity (each, for an alert of two) and what to do', () => {
      const byPage = new Map<string, Alert[]>();
      for (const rule of alerts) {
        const page = `${RUNBOOKS_DIR}/${rule.alert.toLowerCase()}.md`;
        byPage.set(page, [...(byPage.get(page) ?? []), rule]);
      }
      const problems: string[] = [];
      for (const page of runbookPages()) {
        const rules = byPage.get(page);
        if (!rules) {
          problems.push(`${page}: no alert of that name in alerts.yml`);
          continue;
        }
        const text = readRepoFile(page);
        const name = rules[0]!.alert;
        if (!text.startsWith(`# ${name}\n`)) problems.push(`${page}: not titled ${name}`);
        for (const severity of new Set(rules.map((rule) => rule.labels?.['severity'] ?? ''))) {
          if (!text.includes(`**${severity[0]!.toUpperCase()}${severity.slice(1)}`)) {
            problems.push(`${page}: does not say it is ${severity}`);
          }
        }
        for (const heading of ['Confirm', 'What to do', 'When it is over']) {
          if (!text.includes(`\n## ${heading}\n`)) problems.push(`${page}: no "${heading}"`);
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('against the manifests', () => {
    it('gives the Deployments’ rollout (maxSurge, maxUnavailable) and the PodDisruptionBudgets’ as they are', () => {
      const guide = guideText();
      const strategies = new Set(
        deployments.map(({ spec }) => JSON.stringify(spec!.strategy?.rollingUpdate)),
      );
      expect(strategies.size).toBe(1);
      const { maxSurge, maxUnavailable } = deployments[0]!.spec!.strategy!.rollingUpdate!;
      const budgets = new Set(
        ofKind<IPodDisruptionBudget>(production, 'PodDisruptionBudget').map(
          ({ spec }) => spec!.maxUnavailable,
        ),
      );
      expect(budgets.size).toBe(1);
      const problems: string[] = [];
      // A PodDisruptionBudget's maxUnavailable is said as such; any other is a Deployment's.
      for (const match of guide.matchAll(/(PodDisruptionBudget[^.]*?)?`maxUnavailable: (\S+?)`/g)) {
        const expected = match[1] ? [...budgets][0] : maxUnavailable;
        if (match[2] !== String(expected)) problems.push(match[0]);
      }
      const surges = [...guide.matchAll(/`maxSurge: (\S+?)`/g)].map((match) => match[1]);
      problems.push(...surges.filter((surge) => surge !== String(maxSurge)).map(String));
      // "one pod at a time" of a rollout holds only with a surge of one.
      for (const match of guide.matchAll(/\brolls? [^.]*?one pod at a time/g)) {
        if (String(maxSurge) !== '1') problems.push(match[0]);
      }
      expect(problems).toEqual([]);
      expect(surges.length).toBeGreaterThan(0);
    });

    it('gives each workload’s port as its container’s, and the ops port the services are probed and scraped on', () => {
      // The index's table of workloads, before its first section.
      const index = readRepoFile(GUIDE_INDEX).split('\n## ')[0]!;
      const rows = [...index.matchAll(/^\| (\w+) +\| [^|]+\| (\d+) +\|/gm)];
      expect(rows.map((row) => row[1]).sort()).toEqual(
        deployments.map(({ metadata }) => metadata.name).sort(),
      );
      expect(rows.filter(([, name, port]) => portNamed(name!, 'http') !== Number(port))).toEqual(
        [],
      );
      const opsPorts = new Set(SERVICES.map((name) => portNamed(name, 'ops')));
      expect([...opsPorts]).toHaveLength(1);
      const ops = [...opsPorts][0]!;
      const guide = guideText();
      const saidOps = [...guide.matchAll(/ops(?:`)? port(?:s)?,? \(?(\d{4})\b/g)].map((match) =>
        Number(match[1]),
      );
      expect(saidOps.length).toBeGreaterThan(0);
      expect(saidOps.filter((port) => port !== ops)).toEqual([]);
      // Where each workload is probed: every port the probes use is named, with its number.
      const deploy = guidePage('deploy');
      const probed = new Map<string, number>();
      for (const { metadata } of deployments) {
        const container = mainContainer(metadata.name);
        for (const probe of [
          container.startupProbe,
          container.livenessProbe,
          container.readinessProbe,
        ]) {
          const port = probe?.httpGet?.port;
          if (typeof port === 'string') probed.set(port, portNamed(metadata.name, port)!);
        }
      }
      expect([...probed.keys()].sort()).toEqual(['http', 'ops']);
      const unsaid = [...probed].filter(
        ([name, port]) => !new RegExp(`\`${name}\` port \\(${port}\\b`).test(deploy),
      );
      expect(unsaid).toEqual([]);
    });

    it('says who reaches whom as the network policies let them (the table, and "only … reaches")', () => {
      const policies = ofKind<INetworkPolicy>(production, 'NetworkPolicy') as NetworkPolicy[];
      const labelsOf = (name: string) => deployment(name).spec!.template.metadata!.labels ?? {};
      /** source>target:port for every pod-to-pod ingress the policies allow between workloads. */
      const allowed = new Set<string>();
      for (const target of deployments.map(({ metadata }) => metadata.name)) {
        for (const policy of policies) {
          if (!selects(policy.spec!.podSelector, labelsOf(target))) continue;
          for (const rule of policy.spec!.ingress ?? []) {
            for (const peer of rule.from ?? []) {
              if (!peer.podSelector || peer.namespaceSelector) continue;
              for (const source of deployments.map(({ metadata }) => metadata.name)) {
                if (!selects(peer.podSelector, labelsOf(source))) continue;
                for (const { port } of rule.ports ?? []) {
                  const number = typeof port === 'string' ? portNamed(target, port) : port;
                  allowed.add(`${source}>${target}:${number}`);
                }
              }
            }
          }
        }
      }
      const page = guidePage('network-policies');
      const names = new Set(deployments.map(({ metadata }) => metadata.name));
      const written = new Set<string>();
      for (const [, from, to, ports] of page.matchAll(
        /^\| ([a-z]+) +\| ([^|]+?) +\| ([^|]+?) +\|$/gm,
      )) {
        if (!names.has(from!)) continue;
        const targets = to!
          .replace(/\(.*\)/, '')
          .split(/,\s*/)
          .map((name) => name.trim());
        const numbers = ports!.split(/,\s*/);
        targets.forEach((target, i) => {
          if (names.has(target)) written.add(`${from}>${target}:${numbers[i]}`);
        });
      }
      expect(written.size).toBeGreaterThan(0);
      expect([...written].sort()).toEqual([...allowed].sort());
      // "Only the gateway reaches auth": no other workload may.
      const problems: string[] = [];
      for (const [sentence, source, targets] of guideText().matchAll(
        /Only the (\w+) reach(?:es)? ([a-z]+(?:(?:,| and) [a-z]+)*)/g,
      )) {
        for (const target of targets!.split(/,\s*| and /)) {
          const sources = new Set(
            [...allowed]
              .filter((edge) => edge.includes(`>${target}:`))
              .map((edge) => edge.split('>')[0]!),
          );
          if (sources.size !== 1 || !sources.has(source!)) {
            problems.push(`"${sentence}": ${target} is reached by ${[...sources].join(', ')}`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('waits for the migration Job at least as long as the Job may run', () => {
      const job = ofKind<IJob>(production, 'Job')[0]!;
      const deadline = job.spec!.activeDeadlineSeconds;
      expect(deadline).toBeDefined();
      const waits = [
        ...guideText().matchAll(/wait --for=condition=complete job\S* [^`\n]*--timeout=(\d+)m/g),
      ].map((match) => Number(match[1]) * 60);
      expect(waits.length).toBeGreaterThan(0);
      expect(waits.filter((wait) => wait < deadline!)).toEqual([]);
    });

    it('gives the visit spool’s volume, size and folder as the redirect Deployment has them', () => {
      const spec = deployment('redirect').spec!.template.spec!;
      const mount = spec.containers[0]!.volumeMounts!.find(({ mountPath }) =>
        mountPath.includes('spool'),
      )!;
      const volume = spec.volumes!.find(({ name }) => name === mount.name)!;
      const folder = spec.containers[0]!.env!.find(({ name }) => name === 'VISIT_SPOOL_DIR');
      expect(folder?.value).toBe(mount.mountPath);
      const written = /an `emptyDir` \(`([\w-]+)`, (\w+)\) at `([^`]+)`/.exec(
        guidePage('visit-spool'),
      );
      expect(written?.slice(1)).toEqual([
        volume.name,
        String(volume.emptyDir?.sizeLimit),
        mount.mountPath,
      ]);
    });

    it('gives the autoscalers’ ranges and the fixed replicas of production', () => {
      const scaling = guidePage('scaling');
      const hpa = (name: string) => {
        const found = ofKind<IHorizontalPodAutoscaler>(production, 'HorizontalPodAutoscaler').find(
          ({ metadata }) => metadata.name === name,
        )!;
        return [found.spec!.minReplicas, found.spec!.maxReplicas];
      };
      const range = (name: string) =>
        new RegExp(`\\*\\*${name}\\*\\*[^*]*?production:? (\\d+) to (\\d+)`)
          .exec(scaling)
          ?.slice(1)
          .map(Number);
      expect(range('redirect')).toEqual(hpa('redirect'));
      expect(range('gateway')).toEqual(hpa('gateway'));
      const fixed = /\*\*links\*\* and \*\*auth\*\* are fixed \((\d+) and (\d+) in production\)/
        .exec(scaling)
        ?.slice(1)
        .map(Number);
      expect(fixed).toEqual([
        deployment('links').spec!.replicas,
        deployment('auth').spec!.replicas,
      ]);
      const consumers = /production runs (\d+) consumers/.exec(scaling)?.[1];
      expect(Number(consumers)).toBe(deployment('analytics').spec!.replicas);
    });
  });

  describe('against the Kafka users', () => {
    interface Acl {
      resource: { type: string; name?: string; patternType?: string };
      operations: string[];
    }
    const users = new Map(
      renderFolder('k8s/kafka')
        .filter((object) => object.kind === 'KafkaUser')
        .map((user) => [
          user.metadata.name,
          (user as { spec?: { authorization?: { acls?: Acl[] } } }).spec?.authorization?.acls ?? [],
        ]),
    );
    const may = (user: string, operation: string, topic: string) =>
      (users.get(user) ?? []).some(
        (acl) =>
          acl.resource.type === 'topic' &&
          acl.resource.name === topic &&
          acl.operations.includes(operation),
      );

    it('re-drives dead letters only as a user that may read visits.dlq and write visits', () => {
      const guide = guideText();
      const problems: string[] = [];
      // A re-drive run in a Deployment's pod runs as that Deployment's Kafka user. The
      // commands to copy: those of the code blocks.
      const blocks = [...guide.matchAll(/^```[\s\S]*?^```/gm)].map(([block]) => block).join('\n');
      for (const [command, name] of blocks.matchAll(
        /exec deploy\/(\w+) -- node dist\/redrive-dead-letters\.js/g,
      )) {
        const user = mainContainer(name!).env?.find(
          ({ name: variable }) => variable === 'KAFKA_USERNAME',
        )?.value;
        if (!user || !may(user, 'Read', 'visits.dlq')) {
          problems.push(`"${command}" runs as ${user}, which may not read visits.dlq`);
        }
      }
      const page = guidePage('redrive');
      const named = /runs as the user\s+`([\w-]+)`/.exec(page)?.[1] ?? '(no user named)';
      if (!may(named, 'Read', 'visits.dlq')) problems.push(`${named} may not read visits.dlq`);
      if (!may(named, 'Write', 'visits')) problems.push(`${named} may not write visits`);
      expect(problems).toEqual([]);
    });
  });

  describe('against the code', () => {
    it('names only variables something reads: a service, Compose, the images, the edge, the manifests or .env.example', () => {
      const sources = [
        '.env.example',
        'docker-compose.yml',
        'Dockerfile',
        ...fs.readdirSync(path.join(REPO_ROOT, 'infra/edge')).map((name) => `infra/edge/${name}`),
        ...fs
          .readdirSync(path.join(REPO_ROOT, 'k8s'), { recursive: true, encoding: 'utf8' })
          .filter((name) => name.endsWith('.yaml'))
          .map((name) => `k8s/${name}`),
      ]
        .map(readRepoFile)
        .join('\n');
      const read = new Set(SERVICES.flatMap(configVariables));
      const named = new Set(
        [...guideText().matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)].map(
          (match) => match[1]!,
        ),
      );
      expect(named.size).toBeGreaterThan(0);
      // OpenTelemetry's and Node's own variables are read by their SDK and runtime; Kafka's
      // listener protocols are names of the broker's configuration.
      const outside = /^(OTEL_|NODE_)|^SASL_(PLAINTEXT|SSL)$/;
      const unread = [...named].filter(
        (name) =>
          !read.has(name) &&
          !outside.test(name) &&
          !new RegExp(`\\b${name}\\b`).test(sources) &&
          !SERVICES.some((service) =>
            new RegExp(`\\b${name}\\b`).test(
              fs
                .readdirSync(path.join(REPO_ROOT, `services/${service}/src`), {
                  recursive: true,
                  encoding: 'utf8',
                })
                .filter((file) => file.endsWith('.ts'))
                .map((file) => readRepoFile(`services/${service}/src/${file}`))
                .join('\n'),
            ),
          ),
      );
      expect(unread).toEqual([]);
    });

    it('gives as the configuration table’s numeric defaults the services’ own', () => {
      const table = guidePage('configuration');
      const rows = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` +\| ([^|]+?) +\| (\d+)(?: |\|)/gm)];
      expect(rows.length).toBeGreaterThan(20);
      const problems: string[] = [];
      for (const [, name, services, written] of rows) {
        const readers = SERVICES.filter((service) => configVariables(service).includes(name!));
        const listed = services === 'all' ? SERVICES : services!.split(/,\s*/);
        for (const service of readers.filter((reader) => listed.includes(reader))) {
          const actual = configDefault(service, name!);
          if (actual !== Number(written))
            problems.push(`${name} (${service}): ${String(actual)} ≠ ${written}`);
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('against itself and capacity.md', () => {
    it('gives one storage cost a visit: capacity’s is storage’s table and indexes plus visit_ids', () => {
      const storage = guidePage('storage');
      const table = /about (\d+) bytes a visit in its\s+partitions/.exec(storage)?.[1];
      const ids = /plus about (\d+) in `visit_ids`/.exec(storage)?.[1];
      const capacity = readRepoFile('docs/capacity.md');
      const perVisit = /PostgreSQL storage per visit +\| \*\*(?:about )?(\d+) bytes\*\*/.exec(
        capacity,
      )?.[1];
      expect([table, ids, perVisit].every(Boolean)).toBe(true);
      // Rounded to tens, as capacity gives it.
      expect(Math.abs(Number(perVisit) - (Number(table) + Number(ids)))).toBeLessThanOrEqual(10);
    });
  });
});
