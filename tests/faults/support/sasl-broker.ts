import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  ResourcePatternTypes,
  type AclEntry,
} from 'kafkajs';
import { parseAllDocuments } from 'yaml';
import { freePort, REPO_ROOT } from '@shortener/testkit';

// A Kafka 3.9 broker of its own (the jars infra fetched into .infra/kafka/lib, one KRaft node in
// a temporary folder) whose client listener takes SASL/SCRAM-SHA-512 only and whose authorizer
// is Kafka's StandardAuthorizer, as the Strimzi cluster of k8s/kafka runs: a user may do only
// what an ACL allows. `admin` is its super user, for setting up; every other user has the
// ACLs the test gives it.

const LIB = path.join(REPO_ROOT, '.infra', 'kafka', 'lib');
const LOG4J = path.join(REPO_ROOT, 'infra', 'kafka', 'log4j.properties');
const MECHANISM = 'SCRAM-SHA-512';

export interface SaslBroker {
  brokers: string[];
  /** Each user's password, admin's too. */
  passwords: Record<string, string>;
  /** A kafkajs client logged in as `user`. */
  client(user: string): Kafka;
  /** The environment a service's Kafka client logs in with as `user` (KAFKA_*). */
  env(user: string): Record<string, string>;
  stop(): Promise<void>;
}

/** A Strimzi KafkaUser's ACLs (`spec.authorization.acls`), as k8s/kafka/kafka-users.yaml has them. */
export interface StrimziAcl {
  resource: { type: string; name?: string; patternType?: string };
  operations: string[];
  type?: string;
}

/** The shipped KafkaUsers of k8s/kafka/kafka-users.yaml: their names and ACLs. */
export function shippedKafkaUsers(): Map<string, StrimziAcl[]> {
  const file = path.join(REPO_ROOT, 'k8s', 'kafka', 'kafka-users.yaml');
  const users = new Map<string, StrimziAcl[]>();
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const user = document.toJS() as {
      kind: string;
      metadata: { name: string };
      spec: { authorization: { acls: StrimziAcl[] } };
    };
    if (user?.kind === 'KafkaUser') users.set(user.metadata.name, user.spec.authorization.acls);
  }
  return users;
}

const RESOURCE: Record<string, AclResourceTypes> = {
  topic: AclResourceTypes.TOPIC,
  group: AclResourceTypes.GROUP,
  cluster: AclResourceTypes.CLUSTER,
};

/** The operation's name as Strimzi spells it (Read, IdempotentWrite) to kafkajs's. */
function operationOf(name: string): AclOperationTypes {
  const key = name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  const operation = (AclOperationTypes as unknown as Record<string, AclOperationTypes>)[key];
  if (operation === undefined) throw new Error(`unknown ACL operation ${name}`);
  return operation;
}

/** Strimzi's `simple` authorization ACLs of `user` as Kafka ACL bindings (what the operator creates). */
export function aclBindings(user: string, acls: readonly StrimziAcl[]): AclEntry[] {
  return acls.flatMap(({ resource, operations, type = 'allow' }) => {
    const resourceType = RESOURCE[resource.type];
    if (resourceType === undefined) throw new Error(`unknown ACL resource ${resource.type}`);
    return operations.map((operation) => ({
      resourceType,
      resourceName: resource.type === 'cluster' ? 'kafka-cluster' : resource.name!,
      resourcePatternType:
        resource.patternType === 'prefix'
          ? ResourcePatternTypes.PREFIXED
          : ResourcePatternTypes.LITERAL,
      principal: `User:${user}`,
      host: '*',
      operation: operationOf(operation),
      permissionType: type === 'deny' ? AclPermissionTypes.DENY : AclPermissionTypes.ALLOW,
    }));
  });
}

/** Starts the broker with SCRAM credentials for `users` (and admin); resolves once it answers. */
export async function startSaslBroker(users: readonly string[]): Promise<SaslBroker> {
  if (!existsSync(path.join(LIB, '.complete'))) {
    throw new Error(
      `no Kafka jars in ${LIB}: run \`node infra/infra.mjs up\` once (it fetches them)`,
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'sasl-broker-'));
  const [port, controller] = [await freePort(), await freePort()];
  const passwords = Object.fromEntries(
    ['admin', ...users].map((user) => [user, randomBytes(12).toString('hex')]),
  );
  const jaas = (user: string) =>
    `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${passwords[user]}";`;
  const properties = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${controller}`,
    listeners: `SASL_PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
    'advertised.listeners': `SASL_PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    'inter.broker.listener.name': 'SASL_PLAINTEXT',
    'sasl.enabled.mechanisms': MECHANISM,
    'sasl.mechanism.inter.broker.protocol': MECHANISM,
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': jaas('admin'),
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    // ANONYMOUS: the broker's own calls to its controller, on the controller's plaintext
    // listener (in this JVM); clients reach only the SASL listener.
    'super.users': 'User:admin;User:ANONYMOUS',
    'allow.everyone.if.no.acl.found': false,
    'log.dirs': path.join(dir, 'data'),
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': false,
  };
  const config = path.join(dir, 'server.properties');
  writeFileSync(
    config,
    Object.entries(properties)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
  );
  const log = path.join(dir, 'broker.log');
  const java = (args: string[]): ChildProcess =>
    spawn(
      'java',
      [
        '-Xms128m',
        '-Xmx512m',
        '-XX:+UseG1GC',
        `-Dlog4j.configuration=file:${LOG4J}`,
        `-Dkafka.logs.dir=${dir}`,
        '-cp',
        `${LIB}/*`,
        ...args,
      ],
      { cwd: dir, stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] },
    );
  const format = java([
    'kafka.tools.StorageTool',
    'format',
    '-t',
    randomBytes(16).toString('base64url').replace(/^-/, 'A'),
    '-c',
    config,
    ...Object.keys(passwords).flatMap((user) => [
      '--add-scram',
      `${MECHANISM}=[name=${user},password=${passwords[user]}]`,
    ]),
  ]);
  const formatted = await new Promise<number | null>((resolve) => format.on('exit', resolve));
  if (formatted !== 0) {
    throw new Error(`formatting the SASL broker failed:\n${readFileSync(log, 'utf8')}`);
  }
  const broker = java(['kafka.Kafka', config]);
  let exited = false;
  broker.on('exit', () => (exited = true));
  const brokers = [`127.0.0.1:${port}`];
  const client = (user: string) =>
    new Kafka({
      clientId: `sasl-test-${user}`,
      brokers,
      sasl: { mechanism: 'scram-sha-512', username: user, password: passwords[user]! },
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3000,
      retry: { retries: 2, initialRetryTime: 200 },
    });
  const stop = async () => {
    if (!exited) {
      broker.kill('SIGKILL');
      await new Promise((resolve) => broker.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const began = Date.now();
  for (;;) {
    const admin = client('admin').admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      break;
    } catch {
      if (exited || Date.now() - began > 90_000) {
        const tail = readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
        await stop();
        throw new Error(`the SASL broker did not start:\n${tail}`);
      }
      await sleep(500);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
  return {
    brokers,
    passwords,
    client,
    env: (user) => ({
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_USERNAME: user,
      KAFKA_PASSWORD: passwords[user]!,
    }),
    stop,
  };
}
