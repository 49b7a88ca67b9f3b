// Everything the local broker needs before it can start: a new enough Java, free ports,
// the jars (fetched once with Maven), a cluster id, server.properties, formatted storage.
// Each check fails with one line saying what to install, stop or delete.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { InfraError } from './errors.mjs';
import { isPortFree, portOwner } from './net.mjs';
import { paths } from './paths.mjs';
import { run, which, withPrivateFiles } from './proc.mjs';

const KAFKA_VERSION = '3.9.1';
export const HOST = '127.0.0.1';
const DEFAULT_BROKER_PORT = 9092;
const NODE_ID = 1;
export const WIPE_HINT = 'npm run infra:down -- --wipe';
const ELSEWHERE_HINT = 'or set KAFKA_BROKERS to an existing Kafka cluster';

/**
 * The local broker's ports: KAFKA_PORT (default 9092) for clients, the next one for its
 * controller. A second broker on this machine (another checkout, a test that must stop a
 * broker without stopping everyone's) takes another KAFKA_PORT.
 */
export function brokerPorts(env = process.env) {
  const raw = env.KAFKA_PORT;
  if (raw === undefined || raw === '') {
    return { broker: DEFAULT_BROKER_PORT, controller: DEFAULT_BROKER_PORT + 1 };
  }
  const broker = Number(raw);
  if (!Number.isInteger(broker) || broker < 1024 || broker > 65534) {
    throw new InfraError(
      `KAFKA_PORT must be a whole number from 1024 to 65534 (its controller takes the next port), not "${raw}".`,
    );
  }
  return { broker, controller: broker + 1 };
}

// ---------------------------------------------------------------- prerequisites

/** The java to run, checked to be new enough for Kafka 3.9 (Java 11+). */
export async function checkJava() {
  const javaHome = process.env.JAVA_HOME;
  const java = javaHome ? path.join(javaHome, 'bin', 'java') : which('java');
  const install = `install Java 17 (Debian: apt-get install openjdk-17-jre-headless) ${ELSEWHERE_HINT}.`;
  if (!java || !fs.existsSync(java)) {
    const where = javaHome ? ` at JAVA_HOME (${javaHome})` : '';
    throw new InfraError(
      `Java is not installed${where}; the local Kafka broker needs it: ${install}`,
    );
  }
  const { code, stdout, stderr } = await run(java, ['-version'], { timeoutMs: 30_000 });
  const quoted = /version "([^"]+)"/.exec(stderr + stdout)?.[1];
  if (code !== 0 || !quoted) {
    throw new InfraError(
      `${java} -version failed (${(stderr || stdout).trim().split('\n')[0] || code}): ${install}`,
    );
  }
  // "1.8.0_392" is Java 8; "17.0.15" is Java 17.
  const parts = quoted.split(/[._-]/).map(Number);
  const major = parts[0] === 1 ? parts[1] : parts[0];
  if (!(major >= 11)) {
    throw new InfraError(
      `Java ${quoted} is too old for Kafka ${KAFKA_VERSION} (needs 11 or newer): ${install}`,
    );
  }
  return java;
}

export async function checkPorts() {
  const { broker, controller } = brokerPorts();
  for (const port of [broker, controller]) {
    if (await isPortFree(port, HOST)) continue;
    const owner = portOwner(port);
    const who = owner?.pid
      ? owner.argv.includes('kafka.Kafka')
        ? `another Kafka broker (pid ${owner.pid}, not this checkout's)`
        : `${owner.command} (pid ${owner.pid})`
      : 'another program';
    throw new InfraError(
      `Port ${port} on ${HOST} is already in use by ${who}, so the local Kafka broker cannot start: stop it, ${ELSEWHERE_HINT}.`,
    );
  }
}

/** Fetches the broker jars into .infra/kafka/lib once; later runs find them there. */
export async function ensureJars(report) {
  const marker = path.join(paths.kafkaLib, '.complete');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === KAFKA_VERSION) return;
  if (!which('mvn')) {
    throw new InfraError(
      `Maven is needed once to fetch the Kafka ${KAFKA_VERSION} jars into ${paths.kafkaLib} and is not installed: install it (Debian: apt-get install maven) ${ELSEWHERE_HINT}.`,
    );
  }
  report.note(`fetching Kafka ${KAFKA_VERSION} jars with Maven (once) into ${paths.kafkaLib}`);
  // Into a temporary folder first: an interrupted download must not pass for a complete one.
  const temp = `${paths.kafkaLib}.partial-${process.pid}`;
  const libParent = path.dirname(paths.kafkaLib);
  fs.mkdirSync(libParent, { recursive: true });
  for (const entry of fs.readdirSync(libParent)) {
    if (entry.startsWith('lib.partial-')) {
      fs.rmSync(path.join(libParent, entry), { recursive: true, force: true });
    }
  }
  const { code, stdout, stderr } = await run(
    'mvn',
    [
      '-B',
      '-q',
      '-Dstyle.color=never',
      '-f',
      paths.kafkaPom,
      'dependency:copy-dependencies',
      `-DoutputDirectory=${temp}`,
    ],
    { timeoutMs: 15 * 60_000 },
  );
  if (code !== 0 || !fs.existsSync(path.join(temp, `kafka_2.13-${KAFKA_VERSION}.jar`))) {
    fs.rmSync(temp, { recursive: true, force: true });
    const lines = (stdout + stderr).split('\n').filter((line) => /ERROR|error/.test(line));
    throw new InfraError(
      `Maven could not fetch the Kafka jars (exit code ${code}); it needs Maven Central (https://repo.maven.apache.org) or a mirror in ~/.m2/settings.xml.`,
      { details: lines.slice(0, 10) },
    );
  }
  fs.writeFileSync(path.join(temp, '.complete'), `${KAFKA_VERSION}\n`);
  fs.rmSync(paths.kafkaLib, { recursive: true, force: true });
  fs.renameSync(temp, paths.kafkaLib);
}

// ---------------------------------------------------------------- storage

function readProperties(file) {
  const props = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^\s*([^#!=\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) props[match[1]] = match[2];
  }
  return props;
}

/** KRaft cluster ids are 16 random bytes in URL-safe base64; a leading '-' confuses CLIs. */
function newClusterId() {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * The cluster id this checkout's broker uses, made once and kept in .infra/kafka/cluster.id.
 * If that file is lost but the data folder is intact, the data folder's id is adopted.
 */
export function clusterId() {
  try {
    const id = fs.readFileSync(paths.kafkaClusterId, 'utf8').trim();
    if (id) return id;
  } catch {
    // not made yet
  }
  let id;
  try {
    id = readProperties(path.join(paths.kafkaData, 'meta.properties'))['cluster.id'];
  } catch {
    // no data yet either
  }
  id ||= newClusterId();
  fs.mkdirSync(paths.kafkaDir, { recursive: true });
  fs.writeFileSync(paths.kafkaClusterId, `${id}\n`);
  return id;
}

/** The broker's server.properties, on the ports `env` gives (KAFKA_PORT). */
export function serverProperties(env = process.env) {
  const { broker, controller } = brokerPorts(env);
  return {
    'process.roles': 'broker,controller',
    'node.id': NODE_ID,
    'controller.quorum.voters': `${NODE_ID}@${HOST}:${controller}`,
    listeners: `PLAINTEXT://${HOST}:${broker},CONTROLLER://${HOST}:${controller}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${broker}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': paths.kafkaData,
    // A single broker: every replication factor has to be 1.
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    // Tests start consumers constantly; the default 3 s wait before the first rebalance
    // would make every one of them slow to get partitions.
    'group.initial.rebalance.delay.ms': 0,
    // Topics are made on purpose (by infra, by migrations), never by a typo in a producer.
    'auto.create.topics.enable': false,
    'num.partitions': 1,
    // After a crash (fault tests SIGKILL the broker) the restarted broker cannot register
    // until the controller expires the dead incarnation's session: with the default 9 s
    // (plus registration back-off) a restart took ~14 s, with 3 s it takes ~5 s. Broker and
    // controller share one JVM here, so no network can delay the heartbeats.
    'broker.heartbeat.interval.ms': 1000,
    'broker.session.timeout.ms': 3000,
  };
}

/** Written on every start, so a change here (or of KAFKA_PORT) reaches the broker without a wipe. */
export function writeServerProperties() {
  const text = Object.entries(serverProperties())
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
  fs.mkdirSync(paths.kafkaDir, { recursive: true });
  fs.writeFileSync(
    paths.kafkaProperties,
    `# Generated by infra/lib/kafka.mjs on each start; edit that file, not this one.\n${text}\n`,
  );
}

/** True when the data folder still has to be formatted; throws if it belongs elsewhere. */
export function storageNeedsFormat(id) {
  const dir = paths.kafkaData;
  const entries = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  if (!entries.length) return true;
  const stale = (why) =>
    new InfraError(
      `The Kafka data folder ${dir} ${why}: delete it with \`${WIPE_HINT}\` (its topics and messages are lost).`,
    );
  let meta;
  try {
    meta = readProperties(path.join(dir, 'meta.properties'));
  } catch (error) {
    throw stale(
      error.code === 'ENOENT'
        ? 'is not empty but has no meta.properties'
        : `has an unreadable meta.properties (${error.code})`,
    );
  }
  if (!meta['cluster.id'] || !meta['node.id']) throw stale('has a damaged meta.properties');
  if (meta['cluster.id'] !== id) {
    throw stale(`was formatted for another cluster (id ${meta['cluster.id']}, expected ${id})`);
  }
  if (Number(meta['node.id']) !== NODE_ID) {
    throw stale(`belongs to node ${meta['node.id']}, not node ${NODE_ID}`);
  }
  return false;
}

export function jvmArgs() {
  const split = (value) => value.split(/\s+/).filter(Boolean);
  return [
    ...split(process.env.KAFKA_HEAP_OPTS || '-Xms256m -Xmx1g'),
    // The JVM flags Kafka's own kafka-run-class.sh uses.
    '-server',
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${paths.kafkaLog4j}`,
    `-Dkafka.logs.dir=${paths.kafkaDir}`,
    ...split(process.env.KAFKA_OPTS || ''),
    '-cp',
    `${paths.kafkaLib}/*`,
  ];
}

export async function formatStorage(java, id) {
  // It writes the data folder's first files, which are the broker's user's alone.
  const { code, stdout, stderr } = await withPrivateFiles(() =>
    run(java, [
      ...jvmArgs(),
      'kafka.tools.StorageTool',
      'format',
      '-t',
      id,
      '-c',
      paths.kafkaProperties,
    ]),
  );
  if (code !== 0) {
    throw new InfraError(
      `Formatting the Kafka data folder ${paths.kafkaData} failed (exit code ${code}); if it is left over from elsewhere, \`${WIPE_HINT}\`.`,
      { details: (stdout + stderr).trim().split('\n').slice(-10) },
    );
  }
}
