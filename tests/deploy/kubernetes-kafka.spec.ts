import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { describeObject, kafkaTopics, KAFKA_FOLDER } from './support/kubernetes';
import { readRepoFile, REPO_ROOT } from './support/repo';

describe('k8s/kafka: the services’ Kafka users (Strimzi KafkaUser)', () => {
  interface KafkaUser {
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
    spec: {
      authentication: { type: string };
      authorization: {
        type: string;
        acls: {
          resource: { type: string; name?: string; patternType?: string };
          operations: string[];
          type?: string;
        }[];
      };
    };
  }
  const users = parseAllDocuments(readRepoFile('k8s/kafka/kafka-users.yaml')).map(
    (document) => document.toJS() as KafkaUser,
  );
  const aclsOf = (user: KafkaUser): string[] =>
    user.spec.authorization.acls
      .flatMap(({ resource, operations, type }) => {
        if (type !== undefined && type !== 'allow') return [`${type}?`];
        if (resource.type !== 'cluster' && resource.patternType !== 'literal') {
          // Only the re-drive's throwaway groups are named by a prefix.
          if (resource.type !== 'group' || resource.patternType !== 'prefix') return ['prefixed?'];
        }
        const name =
          resource.type === 'cluster'
            ? 'cluster'
            : `${resource.type} ${resource.name}${resource.patternType === 'prefix' ? '*' : ''}`;
        return operations.map((operation) => `${operation} ${name}`);
      })
      .sort();

  it('is one SCRAM-SHA-512 user per Kafka client, named as its Deployment logs in', () => {
    expect(
      users.map((user) => [user.kind, user.metadata.name, user.spec.authentication.type]),
    ).toEqual([
      ['KafkaUser', 'shortener-redirect', 'scram-sha-512'],
      ['KafkaUser', 'shortener-analytics', 'scram-sha-512'],
      ['KafkaUser', 'shortener-redrive', 'scram-sha-512'],
    ]);
    for (const user of users) {
      expect(user.metadata.labels?.['strimzi.io/cluster']).toBe('shortener');
      expect(user.spec.authorization.type).toBe('simple');
    }
    for (const name of ['redirect', 'analytics']) {
      expect(readRepoFile(`k8s/base/${name}.yaml`)).toMatch(
        new RegExp(`- name: KAFKA_USERNAME\\n\\s+value: shortener-${name}\\n`),
      );
    }
  });

  it('lets only redirect (and the re-drive) write visits, and only analytics read it (in its group) and write visits.dlq', () => {
    expect(Object.fromEntries(users.map((user) => [user.metadata.name, aclsOf(user)]))).toEqual({
      'shortener-redirect': [
        'Describe topic visits',
        'IdempotentWrite cluster',
        'Write topic visits',
      ],
      'shortener-analytics': [
        'Describe topic visits',
        'Describe topic visits.dlq',
        'IdempotentWrite cluster',
        'Read group analytics',
        'Read topic visits',
        'Write topic visits.dlq',
      ],
      // The operator's dead-letter re-drive: visits.dlq back to visits, in groups of its own.
      // Only what it needs (tests/faults/redrive-acls.fault-spec.ts fails it without each).
      'shortener-redrive': [
        'Delete group analytics-redrive-*',
        'Read group analytics-redrive-*',
        'Read topic visits.dlq',
        'Write topic visits',
      ],
    });
  });
});

describe('k8s/kafka: the topics (Strimzi KafkaTopic), where their partitions are written once', () => {
  const topics = kafkaTopics();

  it('declares visits and visits.dlq for the cluster, kept through the loss of a broker, with a set retention', () => {
    expect([...topics.keys()].sort()).toEqual(['visits', 'visits.dlq']);
    const problems: string[] = [];
    for (const topic of topics.values()) {
      const where = describeObject(topic);
      const { replicas, partitions, config = {} } = topic.spec;
      if (topic.apiVersion !== 'kafka.strimzi.io/v1beta2')
        problems.push(`${where}: ${topic.apiVersion}`);
      if (topic.metadata.namespace !== 'kafka') problems.push(`${where}: not in namespace kafka`);
      if (topic.metadata.labels?.['strimzi.io/cluster'] !== 'shortener') {
        problems.push(`${where}: not for the Strimzi cluster shortener`);
      }
      if (!(Number.isInteger(partitions) && partitions >= 1)) problems.push(`${where}: partitions`);
      if (replicas !== 3) problems.push(`${where}: ${replicas} replicas`);
      if (Number(config['min.insync.replicas']) !== 2) {
        problems.push(`${where}: min.insync.replicas ${config['min.insync.replicas']}`);
      }
      if (!(Number(config['retention.ms']) > 0)) problems.push(`${where}: no retention.ms`);
    }
    expect(problems).toEqual([]);
  });

  it('is what infra:up creates on a local broker', () => {
    const created = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { wantedTopics } = await import('./infra/lib/kafka.mjs'); process.stdout.write(JSON.stringify(wantedTopics({})));",
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(JSON.parse(created)).toEqual(
      [...topics.values()].map((topic) => ({
        topic: topic.metadata.name,
        numPartitions: topic.spec.partitions,
      })),
    );
  });

  it('is applied with the Kafka users, beside the cluster', () => {
    expect(readRepoFile(`${KAFKA_FOLDER}/kustomization.yaml`)).toMatch(/- kafka-topics\.yaml/);
  });
});
