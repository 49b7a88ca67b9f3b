import { parseAllDocuments } from 'yaml';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IConfigMap } from 'kubernetes-models/v1';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ofKind, overlays, render, selects, type Manifest } from './support/kubernetes';
import { readRepoFile, repoPathExists } from './support/repo';

// k8s/operations: the Jobs an operator creates by hand (not part of any overlay), here the
// dead-letter re-drive. It must run the command of the analytics image as its own Kafka user,
// with that user's password and nothing else, and the network policies must let it reach
// Kafka (and only Kafka). tests/faults/redrive-acls runs the command under that user's ACLs.

const FILE = 'k8s/operations/redrive-dead-letters.yaml';
const readJob = (file: string) =>
  parseAllDocuments(readRepoFile(file))
    .map((document) => document.toJS() as Manifest & IJob)
    .find((object) => object.kind === 'Job')!;
const envOf = (job: IJob) =>
  new Map(
    (job.spec!.template.spec!.containers[0]!.env ?? []).map(({ name, value }) => [name, value]),
  );
const job = readJob(FILE);
const pod = job.spec!.template;
const container = pod.spec!.containers[0]!;
const env = envOf(job);
const PORTS = { postgres: 5432, redis: 6379, kafka: 9092 };

/** What the policies selecting a Job's pod let it reach, by datastore. */
function reaches(objects: readonly Manifest[], labels = pod.metadata?.labels ?? {}): string[] {
  const egress = ofKind<INetworkPolicy>(objects, 'NetworkPolicy').filter(
    (policy) =>
      selects(policy.spec!.podSelector, labels) && policy.spec!.policyTypes?.includes('Egress'),
  );
  return Object.entries(PORTS)
    .filter(([, port]) =>
      egress.some((policy) =>
        (policy.spec!.egress ?? []).some((rule) =>
          (rule.ports ?? []).some((allowed) => allowed.port === port),
        ),
      ),
    )
    .map(([server]) => server);
}

describe(`${FILE}: the dead-letter re-drive Job`, () => {
  it('runs the re-drive command of the analytics image once, under a new name each time', () => {
    expect(job.kind).toBe('Job');
    expect(job.metadata.name).toBeUndefined();
    expect(job.metadata.generateName).toBe('redrive-dead-letters-');
    expect(job.spec!.backoffLimit).toBe(0);
    expect(container.image).toBe('shortener-analytics');
    expect(container.command).toEqual([
      'node',
      '/app/services/analytics/dist/redrive-dead-letters.js',
    ]);
    expect(repoPathExists('services/analytics/src/redrive-dead-letters.ts')).toBe(true);
    expect(pod.spec!.restartPolicy).toBe('Never');
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
    });
  });

  it('logs in to Kafka as shortener-redrive with its password from a file of its Secret, and gets nothing else', () => {
    const users = parseAllDocuments(readRepoFile('k8s/kafka/kafka-users.yaml')).map(
      (document) => (document.toJS() as Manifest).metadata.name,
    );
    expect(users).toContain('shortener-redrive');
    expect([...env.keys()].sort()).toEqual([
      'KAFKA_BROKERS',
      'KAFKA_PASSWORD_FILE',
      'KAFKA_SASL_MECHANISM',
      'KAFKA_USERNAME',
    ]);
    expect(env.get('KAFKA_USERNAME')).toBe('shortener-redrive');
    expect(env.get('KAFKA_SASL_MECHANISM')).toBe('scram-sha-512');
    const file = env.get('KAFKA_PASSWORD_FILE')!;
    const mount = container.volumeMounts!.find(({ mountPath }) =>
      file.startsWith(`${mountPath}/`),
    )!;
    const volume = pod.spec!.volumes!.find(({ name }) => name === mount.name)!;
    expect(volume.secret).toMatchObject({
      secretName: 'shortener-redrive',
      items: [{ key: 'password', path: file.slice(mount.mountPath.length + 1) }],
    });
    expect(volume.secret!.optional).not.toBe(true);
  });

  it('names the brokers the production overlay names', () => {
    const brokers = ofKind<IConfigMap>(render('production'), 'ConfigMap')
      .map((configMap) => configMap.data?.['KAFKA_BROKERS'])
      .find(Boolean);
    expect(env.get('KAFKA_BROKERS')).toBe(brokers);
  });

  it.each(overlays())(
    'may reach Kafka and no other datastore under the %s overlay’s policies',
    (overlay) => {
      expect(reaches(render(overlay))).toEqual(['kafka']);
    },
  );
});

describe('k8s/operations/partition-visits.yaml: the analytics migration without a deadline', () => {
  const partition = readJob('k8s/operations/partition-visits.yaml');
  const migrate = readJob('k8s/base/migrate-job.yaml');
  const analyticsOf = (of: IJob) =>
    of.spec!.template.spec!.containers.find(({ name }) => name === 'analytics')!;

  it('runs the migration Job’s analytics container without its copy budget or a deadline', () => {
    expect(partition.metadata.generateName).toBe('partition-visits-');
    expect(partition.spec!.activeDeadlineSeconds).toBeUndefined();
    const [mine, jobs] = [analyticsOf(partition), analyticsOf(migrate)];
    expect([mine.image, mine.command]).toEqual([jobs.image, jobs.command]);
    expect([...envOf(partition).keys()]).toEqual(['DATABASE_URL_FILE']);
  });

  it('leaves the migration Job a copy budget that ends well within its deadline', () => {
    const budget = Number(
      analyticsOf(migrate).env!.find(({ name }) => name === 'PARTITION_COPY_SECONDS')?.value,
    );
    expect(budget).toBeGreaterThan(0);
    // The rest: the swap (a second's lock, tried for about two minutes) and ANALYZE.
    expect(budget + 180).toBeLessThanOrEqual(migrate.spec!.activeDeadlineSeconds!);
  });

  it.each(overlays())(
    'may reach PostgreSQL and no other datastore under the %s overlay’s policies',
    (overlay) => {
      expect(reaches(render(overlay), partition.spec!.template.metadata?.labels)).toEqual([
        'postgres',
      ]);
    },
  );
});
