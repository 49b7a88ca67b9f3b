import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { KafkaMessage } from 'kafkajs';
import { VISITS_DLQ_TOPIC, VISITS_TOPIC } from '@shortener/contracts';
import { REPO_ROOT, waitFor } from '@shortener/testkit';
import {
  aclBindings,
  shippedKafkaUsers,
  startSaslBroker,
  type SaslBroker,
  type StrimziAcl,
} from './support/sasl-broker';

// The dead-letter re-drive (analytics' redrive-dead-letters command) under the shipped Kafka
// ACLs: a broker with SASL/SCRAM-SHA-512 and Kafka's StandardAuthorizer, the users and ACLs of
// k8s/kafka/kafka-users.yaml as Strimzi would create them. As shortener-redrive it sends the
// dead letters back; as the analytics pod's user (the old `kubectl exec deploy/analytics`), or
// as a user missing any one of shortener-redrive's ACLs, it fails saying who was refused what,
// and sends nothing.

const COMMAND = path.join(REPO_ROOT, 'services', 'analytics', 'dist', 'redrive-dead-letters.js');
const REDRIVE = 'shortener-redrive';
const shipped = shippedKafkaUsers();
const redriveAcls = shipped.get(REDRIVE) ?? [];

/** shortener-redrive's ACLs one at a time: [that ACL's name, the others]. */
const withoutOne: Array<[string, StrimziAcl[]]> = redriveAcls.flatMap((acl, index) =>
  acl.operations.map((operation): [string, StrimziAcl[]] => [
    `${operation} ${acl.resource.type} ${acl.resource.name ?? ''}`.trim(),
    [
      ...redriveAcls.filter((_, other) => other !== index),
      ...(acl.operations.length > 1
        ? [{ ...acl, operations: acl.operations.filter((kept) => kept !== operation) }]
        : []),
    ],
  ]),
);
const variantUser = (index: number) => `redrive-without-${index}`;

let broker: SaslBroker;

beforeAll(async () => {
  expect(redriveAcls.length).toBeGreaterThan(0);
  broker = await startSaslBroker([...shipped.keys(), ...withoutOne.map((_, i) => variantUser(i))]);
  const admin = broker.client('admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: VISITS_TOPIC, numPartitions: 3 },
        { topic: VISITS_DLQ_TOPIC, numPartitions: 2 },
      ],
    });
    await admin.createAcls({
      acl: [
        ...[...shipped].flatMap(([user, acls]) => aclBindings(user, acls)),
        ...withoutOne.flatMap(([, acls], i) => aclBindings(variantUser(i), acls)),
      ],
    });
  } finally {
    await admin.disconnect();
  }
  // The dead letters, written as analytics writes them (its own user may write visits.dlq).
  const producer = broker.client('shortener-analytics').producer();
  await producer.connect();
  await producer.send({
    topic: VISITS_DLQ_TOPIC,
    messages: [
      ...[1, 2, 3].map((n) => ({
        key: `code${n}`,
        value: `{"visit":${n}}`,
        headers: { 'dlq-reason': 'violates check constraint', 'dlq-source': `visits/0/${n}` },
      })),
      { key: 'code4', value: '{"visit":4}', headers: { 'dlq-reason': 'schema: url_id' } },
      // Cut when dead-lettered: never replayable.
      {
        key: 'code5',
        value: '{"vis',
        headers: { 'dlq-reason': 'schema', 'dlq-truncated-from': '2000000' },
      },
    ],
  });
  await producer.disconnect();
}, 150_000);

afterAll(async () => {
  await broker?.stop();
});

/** The command run as `user`, with only what a Job gives it (production, no service secret). */
async function redriveAs(
  user: string,
  args: string[],
): Promise<{ code: number; report?: Record<string, unknown>; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [COMMAND, ...args], {
      env: { PATH: process.env['PATH'], NODE_ENV: 'production', ...broker.env(user) },
      timeout: 90_000,
    });
    return { code: 0, report: JSON.parse(stdout) as Record<string, unknown>, stderr };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, stderr: failed.stderr ?? String(error) };
  }
}

/** Messages on the visits topic (its partitions' ends, summed). */
async function visitsOnTopic(): Promise<number> {
  const admin = broker.client('admin').admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(VISITS_TOPIC);
    return offsets.reduce((sum, { high }) => sum + Number(high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** The re-drive's throwaway groups still on the broker. */
async function redriveGroups(): Promise<string[]> {
  const admin = broker.client('admin').admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    return groups.map(({ groupId }) => groupId).filter((id) => id.startsWith('analytics-redrive-'));
  } finally {
    await admin.disconnect();
  }
}

describe('the dead-letter re-drive under the shipped Kafka ACLs (SASL/SCRAM, StandardAuthorizer)', () => {
  it('as shortener-redrive: the dry run reports, the re-drive sends every replayable letter back once, and leaves no group', async () => {
    const groupsBefore = await redriveGroups();
    const dry = await redriveAs(REDRIVE, ['--dry-run']);
    expect(dry).toMatchObject({ code: 0, report: { dryRun: true, wouldRedrive: 4, read: 5 } });
    expect(await visitsOnTopic()).toBe(0);

    const run = await redriveAs(REDRIVE, []);
    expect(run.code).toBe(0);
    expect(run.report).toEqual({
      dryRun: false,
      redriven: 4,
      byReason: { 'violates check constraint': 3, 'schema: url_id': 1 },
      read: 5,
      skipped: { filtered: 0, truncated: 1 },
    });
    expect(await redriveGroups()).toEqual(groupsBefore);

    // Analytics, as its own user in its own group, reads them back from visits.
    const consumer = broker.client('shortener-analytics').consumer({ groupId: 'analytics' });
    const read: KafkaMessage[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [VISITS_TOPIC], fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          read.push(message);
          return Promise.resolve();
        },
      });
      await waitFor(() => read.length >= 4, {
        what: 'the re-driven letters read by analytics',
        timeoutMs: 30_000,
        intervalMs: 200,
      });
    } finally {
      await consumer.disconnect();
    }
    expect(read.map((message) => message.value?.toString()).sort()).toEqual([
      '{"visit":1}',
      '{"visit":2}',
      '{"visit":3}',
      '{"visit":4}',
    ]);
    for (const message of read) {
      expect(message.headers?.['dlq-reason']).toBeUndefined();
      expect(String(message.headers?.['redriven-from'])).toMatch(/^visits\.dlq\/\d\/\d+$/);
    }
  });

  it('as the analytics pod’s user: refused, saying who and what the re-drive needs; nothing sent', async () => {
    const before = await visitsOnTopic();
    const run = await redriveAs('shortener-analytics', []);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Kafka refused the user shortener-analytics: no coordinator for its consumer group/m,
    );
    expect(run.stderr).toMatch(/runs as the Kafka user shortener-redrive/);
    expect(await visitsOnTopic()).toBe(before);
  });

  it.each(withoutOne.map(([acl], index) => [acl, index] as const))(
    'as a user with every ACL of shortener-redrive but %s: refused, nothing sent (or, without Delete, its group left behind)',
    async (acl, index) => {
      const user = variantUser(index);
      const before = await redriveGroups();
      const sent = await visitsOnTopic();
      const run = await redriveAs(user, []);
      const said = run.stderr.split('\n').find((line) => line.startsWith('Kafka refused')) ?? '';
      process.stdout.write(`re-drive without ${acl}: exit ${run.code} ${said}\n`);
      if (/^Delete group/.test(acl)) {
        // It re-drives, but cannot delete its group: one left behind for each run.
        expect(run.code).toBe(0);
        expect((await redriveGroups()).length).toBe(before.length + 1);
        return;
      }
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^Kafka refused the user ${user}: (Not authorized|Cluster authorization failed|no coordinator)`,
          'm',
        ),
      );
      expect(await visitsOnTopic()).toBe(sent);
    },
  );
});
