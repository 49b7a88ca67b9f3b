// Kafka: either the cluster KAFKA_BROKERS names, or a local Apache Kafka broker run from
// jars Maven fetched once (no Docker and no Kafka distribution on these machines):
// one KRaft node acting as broker and controller, data under .infra/kafka.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { InfraError } from './errors.mjs';
import { ensureTopics, probeKafka, waitUntilReady } from './kafka-client.mjs';
import {
  HOST,
  WIPE_HINT,
  brokerPorts,
  checkJava,
  checkPorts,
  clusterId,
  ensureJars,
  formatStorage,
  jvmArgs,
  storageNeedsFormat,
  writeServerProperties,
} from './kafka-setup.mjs';
import { seconds } from './output.mjs';
import { paths, ROOT_DIR } from './paths.mjs';
import {
  argvOf,
  findProcesses,
  isAlive,
  privateFolder,
  stopProcess,
  tailFile,
  withPrivateFiles,
} from './proc.mjs';
import { readState, recordState } from './state.mjs';

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 30_000;
const LOG_ROTATE_BYTES = 20 * 1024 * 1024;
// Written into broker.log before each start, so a failure shows this start's lines only.
const START_MARKER = '==== infra: starting Kafka broker';

/** This checkout's local broker, on KAFKA_PORT (default 9092). */
function localBrokers(env = process.env) {
  return [`${HOST}:${brokerPorts(env).broker}`];
}

/** The bootstrap brokers the services should use: KAFKA_BROKERS, or the local broker. */
export function kafkaBrokers(env = process.env) {
  const list = (env.KAFKA_BROKERS || '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
  return list.length ? list : localBrokers(env);
}

function usesExternalKafka(env = process.env) {
  return Boolean((env.KAFKA_BROKERS || '').trim());
}

/**
 * The topics as Kubernetes declares them (KafkaTopics, k8s/kafka/kafka-topics.yaml): the one
 * place their partitions are written, so a local broker gets the same.
 */
function declaredTopics() {
  const file = path.join(ROOT_DIR, 'k8s/kafka/kafka-topics.yaml');
  return parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((document) => document.toJS())
    .filter((object) => object?.kind === 'KafkaTopic')
    .map((topic) => ({ topic: topic.metadata.name, numPartitions: topic.spec.partitions }));
}

/**
 * Topics infra creates, as declared, but for KAFKA_VISITS_PARTITIONS (a local override of
 * visits'); also validates it before anything starts.
 */
export function wantedTopics(env = process.env) {
  const topics = declaredTopics();
  const raw = env.KAFKA_VISITS_PARTITIONS;
  if (raw === undefined || raw === '') return topics;
  const visits = Number(raw);
  if (!Number.isInteger(visits) || visits < 1 || visits > 1000) {
    throw new InfraError(
      `KAFKA_VISITS_PARTITIONS must be a whole number from 1 to 1000, not "${raw}".`,
    );
  }
  return topics.map((wanted) =>
    wanted.topic === 'visits' ? { ...wanted, numPartitions: visits } : wanted,
  );
}

// ---------------------------------------------------------------- the broker process

/** Our broker is recognised by its command line: `kafka.Kafka <our server.properties>`. */
function isOurBroker(pid) {
  const argv = argvOf(pid);
  return isAlive(pid) && argv.includes('kafka.Kafka') && argv.includes(paths.kafkaProperties);
}

/**
 * Pid of this checkout's running broker, or null. A recorded pid that died is dropped
 * silently; a broker whose record was lost is found by its command line.
 */
function findOurBroker() {
  const entry = readState().kafka;
  if (entry && isOurBroker(entry.pid)) return entry.pid;
  if (entry) recordState('kafka', undefined);
  const [pid] = findProcesses(
    (argv) => argv.includes('kafka.Kafka') && argv.includes(paths.kafkaProperties),
  );
  return pid ?? null;
}

function brokerLogTail(count = 20) {
  return tailFile(paths.kafkaLog, count, { after: START_MARKER }).map((line) => `  ${line}`);
}

function openBrokerLog(dir) {
  const log = path.join(dir, path.basename(paths.kafkaLog));
  privateFolder(dir);
  try {
    if (fs.statSync(log).size > LOG_ROTATE_BYTES) {
      fs.renameSync(log, `${log}.1`);
    }
  } catch {
    // no log yet
  }
  const fd = fs.openSync(log, 'a', 0o600);
  // A log an earlier version wrote was readable by everyone.
  fs.fchmodSync(fd, 0o600);
  fs.writeSync(fd, `${START_MARKER} at ${new Date().toISOString()} ====\n`);
  return fd;
}

/**
 * Starts the broker (`java`) in `dir`, its output appended to broker.log there. Its segments
 * hold every visit's address, user agent and referrer: the folder and all it writes are its
 * user's alone.
 */
export function spawnBroker(java, dir = paths.kafkaDir) {
  const log = openBrokerLog(dir);
  let child;
  try {
    // detached: its own process group, so it outlives this command and Ctrl-C here.
    child = withPrivateFiles(() =>
      spawn(java, [...jvmArgs(), 'kafka.Kafka', paths.kafkaProperties], {
        cwd: dir,
        detached: true,
        stdio: ['ignore', log, log],
      }),
    );
  } finally {
    fs.closeSync(log);
  }
  let exit = null;
  child.on('exit', (code, sig) => (exit = sig ? `killed by ${sig}` : `exit code ${code}`));
  child.on('error', (error) => (exit = error.message));
  child.unref();
  return { pid: child.pid, exited: () => exit };
}

/**
 * Makes sure this checkout's broker runs and serves group coordinators.
 * @returns {Promise<{ pid: number, started: boolean, ms: number }>}
 */
async function runLocalBroker({ report, signal, timeoutMs = START_TIMEOUT_MS }) {
  const began = Date.now();
  const brokers = localBrokers();
  let running = findOurBroker();
  if (running && !fs.existsSync(path.join(paths.kafkaData, 'meta.properties'))) {
    // .infra was deleted under a running broker: it cannot work without its data folder.
    report.note(`the running broker (pid ${running}) lost its data folder; restarting it`);
    await stopProcess(running, { sig: 'SIGKILL' });
    recordState('kafka', undefined);
    running = null;
  }
  // Before anything is written there; a folder an earlier version left open is closed, under
  // a broker already running too.
  privateFolder(paths.kafkaDir);
  if (running) {
    recordState('kafka', { ...readState().kafka, pid: running });
    try {
      await waitUntilReady(brokers, {
        timeoutMs,
        signal,
        died: () => (isAlive(running) ? null : 'exited'),
      });
    } catch (error) {
      throw new InfraError(
        `The local Kafka broker (pid ${running}) is running but not ready (${error.message}): \`npm run infra:down\` and try again.`,
        { details: brokerLogTail() },
      );
    }
    return { pid: running, started: false, ms: Date.now() - began };
  }

  const java = await checkJava();
  await checkPorts();
  await ensureJars(report);
  const id = clusterId();
  writeServerProperties();
  if (storageNeedsFormat(id)) await formatStorage(java, id);

  const broker = spawnBroker(java);
  // Recorded at once, so `down` can stop it even if this command dies while waiting.
  recordState('kafka', { pid: broker.pid, startedAt: new Date().toISOString() });
  try {
    await waitUntilReady(brokers, {
      timeoutMs,
      signal,
      died: () => broker.exited() ?? (isAlive(broker.pid) ? null : 'exited'),
    });
  } catch (error) {
    await stopProcess(broker.pid, { graceMs: 5000 });
    recordState('kafka', undefined);
    if (error.aborted)
      throw new InfraError('Interrupted: stopped the Kafka broker it had started.');
    const what = error.died
      ? `The Kafka broker exited during start-up (${error.message})`
      : `The Kafka broker did not become ready within ${seconds(timeoutMs)} (last answer: ${error.message}); it was stopped`;
    throw new InfraError(`${what}. Log: ${paths.kafkaLog}`, { details: brokerLogTail() });
  }
  return { pid: broker.pid, started: true, ms: Date.now() - began };
}

// ---------------------------------------------------------------- what infra.mjs uses

function topicsNote(topics) {
  return topics.created.length ? `; created ${topics.created.join(', ')}` : '';
}

function reportMismatches(topics, report, external) {
  for (const { topic, has, wants } of topics.mismatched) {
    report.note(
      `topic ${topic} has ${has} partitions, not ${wants}; ` +
        (external ? 'left as it is.' : `\`${WIPE_HINT}\` to recreate it.`),
    );
  }
}

/**
 * Local broker (started if needed) or KAFKA_BROKERS (checked), plus the topics.
 * @returns {Promise<{ brokers: string[], external: boolean, started: boolean, pid?: number, created: string[] }>}
 */
export async function ensureKafka({ report, signal, timeoutMs }) {
  const topics = wantedTopics();
  const brokers = kafkaBrokers();
  if (usesExternalKafka()) {
    try {
      await waitUntilReady(brokers, { timeoutMs: timeoutMs ?? 10_000, signal });
    } catch (error) {
      throw new InfraError(
        `Kafka at ${brokers.join(',')} (KAFKA_BROKERS) is not usable: ${error.message}. Fix KAFKA_BROKERS, or unset it to run a local broker.`,
      );
    }
    const made = await ensureTopics(brokers, topics);
    report.line('Kafka', brokers.join(','), `ready (KAFKA_BROKERS${topicsNote(made)})`);
    reportMismatches(made, report, true);
    return { brokers, external: true, started: false, created: made.created };
  }

  const broker = await runLocalBroker({ report, signal, timeoutMs });
  const made = await ensureTopics(brokers, topics);
  const how = broker.started
    ? `started, pid ${broker.pid}, ${seconds(broker.ms)}`
    : `already running, started by infra, pid ${broker.pid}`;
  report.line('Kafka', brokers.join(','), `ready (${how}${topicsNote(made)})`);
  reportMismatches(made, report, false);
  return {
    brokers,
    external: false,
    started: broker.started,
    pid: broker.pid,
    created: made.created,
  };
}

function refuseExternal(action) {
  if (usesExternalKafka()) {
    throw new InfraError(
      `KAFKA_BROKERS is set (${kafkaBrokers().join(',')}): infra only ${action} its own local broker; unset KAFKA_BROKERS to use it.`,
    );
  }
}

/** Starts (or finds) the local broker and waits until it is ready. */
export async function startLocalKafka({ report, signal, timeoutMs }) {
  refuseExternal('starts');
  wantedTopics(); // validate before starting anything
  return ensureKafka({ report, signal, timeoutMs });
}

/**
 * Stops the local broker if one runs. SIGKILL is for fault tests: an abrupt crash, with
 * the data folder left as a crash leaves it.
 * @returns {Promise<{ stopped: boolean, pid?: number, forced?: boolean, ms?: number }>}
 */
export async function stopLocalKafka({ report, signal = 'SIGTERM', graceMs = STOP_GRACE_MS }) {
  if (signal !== 'SIGTERM' && signal !== 'SIGKILL') {
    throw new InfraError(`stopKafka: signal must be 'SIGTERM' or 'SIGKILL', not ${signal}.`);
  }
  const pid = findOurBroker();
  if (!pid) {
    recordState('kafka', undefined);
    return { stopped: false };
  }
  const began = Date.now();
  const { forced } = await stopProcess(pid, { sig: signal, graceMs });
  recordState('kafka', undefined);
  const ms = Date.now() - began;
  const how =
    signal === 'SIGKILL' ? 'killed' : forced ? `killed after ${seconds(graceMs)}` : 'stopped';
  report.line('Kafka', localBrokers().join(','), `${how} (pid ${pid}, ${seconds(ms)})`);
  return { stopped: true, pid, forced, ms };
}

export function wipeKafkaData({ report }) {
  if (findOurBroker()) throw new InfraError('Refusing to wipe Kafka data while the broker runs.');
  const existed = fs.existsSync(paths.kafkaData);
  fs.rmSync(paths.kafkaData, { recursive: true, force: true });
  if (existed) report.line('Kafka', localBrokers().join(','), `data wiped (${paths.kafkaData})`);
  return existed;
}

export async function kafkaStatus() {
  const brokers = kafkaBrokers();
  const external = usesExternalKafka();
  const pid = external ? null : findOurBroker();
  const probe = await probeKafka(brokers);
  return {
    name: 'Kafka',
    address: brokers.join(','),
    reachable: probe.reachable,
    detail: probe.reachable ? '' : probe.detail,
    startedByInfra: Boolean(pid),
    pid: pid ?? undefined,
    external,
  };
}
