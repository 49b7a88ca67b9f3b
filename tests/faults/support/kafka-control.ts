import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { VISITS_TOPIC } from '@shortener/contracts';
import { REPO_ROOT, testServers } from '@shortener/testkit';

const run = promisify(execFile);
const INFRA = pathToFileURL(path.join(REPO_ROOT, 'infra', 'infra.mjs')).href;
// This checkout's broker, as infra runs it: on KAFKA_PORT (default 9092). A run that must not
// stop the broker others on the machine use starts its own on another port (tests/faults/README.md).
const LOCAL_PORT = process.env['KAFKA_PORT'] || '9092';
const LOCAL_BROKERS = new Set([`127.0.0.1:${LOCAL_PORT}`, `localhost:${LOCAL_PORT}`]);

/** True when the tests use this checkout's local broker, the only one infra can kill and restart. */
export function usesLocalBroker(): boolean {
  return testServers.kafkaBrokers.every((broker) => LOCAL_BROKERS.has(broker));
}

/**
 * Calls one of infra.mjs's exported functions in a child process: infra is an ES module and
 * Jest runs these tests as CommonJS. KAFKA_BROKERS is left out because infra only kills and
 * restarts its own local broker when it is not told to use an external one; KAFKA_PORT stays,
 * so the broker it stops and starts is the one on that port.
 */
async function callInfra<T>(fn: 'stopKafka' | 'startKafka', options: object): Promise<T> {
  const script =
    'const infra = await import(process.argv[1]);' +
    'const result = await infra[process.argv[2]]({ quiet: true, ...JSON.parse(process.argv[3]) });' +
    'process.stdout.write(JSON.stringify(result));';
  const env = { ...process.env };
  delete env['KAFKA_BROKERS'];
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', script, INFRA, fn, JSON.stringify(options)],
    { cwd: REPO_ROOT, env, timeout: 120_000 },
  );
  return JSON.parse(stdout) as T;
}

export function killBroker(): Promise<{ stopped: boolean; pid?: number }> {
  return callInfra('stopKafka', { signal: 'SIGKILL' });
}

/** Whether a broker answers at all (admin connect, no retries). */
export async function brokerReachable(): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'fault-tests-probe',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Starts the local broker if it is not running and waits until groups can be joined. */
export function startBroker(): Promise<{ started: boolean; pid?: number }> {
  return callInfra('startKafka', { timeoutMs: 90_000 });
}

function kafka(): Kafka {
  return new Kafka({
    clientId: 'fault-tests',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    retry: { retries: 3 },
  });
}

async function withAdmin<T>(work: (admin: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Commits the topic's current end offsets for a group that does not exist yet. The consumer
 * subscribes fromBeginning, and a new group would otherwise first read every visit event
 * ever produced on this machine (other runs, the development stack) before ours.
 */
export function startGroupAtEnd(groupId: string): Promise<void> {
  return withAdmin(async (admin) => {
    const ends = await admin.fetchTopicOffsets(VISITS_TOPIC);
    await admin.setOffsets({
      groupId,
      topic: VISITS_TOPIC,
      partitions: ends.map(({ partition, high }) => ({ partition, offset: high })),
    });
  });
}

/** The group's committed offsets, summed over the topic's partitions. */
export function committedTotal(groupId: string): Promise<bigint> {
  return withAdmin(async (admin) => {
    const [topic] = await admin.fetchOffsets({ groupId, topics: [VISITS_TOPIC] });
    return (topic?.partitions ?? []).reduce((sum, { offset }) => sum + BigInt(offset), 0n);
  });
}

/** Members of a consumer group and how many partitions each holds. */
export function groupMembers(groupId: string): Promise<{ state: string; partitions: number[] }> {
  return withAdmin(async (admin) => {
    const { groups } = await admin.describeGroups([groupId]);
    const group = groups[0];
    const partitions = (group?.members ?? []).map((member) => {
      const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      return Object.values(decoded?.assignment ?? {}).reduce((sum, list) => sum + list.length, 0);
    });
    return { state: group?.state ?? 'Unknown', partitions };
  });
}
