// Talking to a Kafka cluster (ours or KAFKA_BROKERS) with the same client the services
// use: readiness, topics, a quick probe for `status`.
import kafkajs from 'kafkajs';
import { InfraError, reason } from './errors.mjs';
import { sleep } from './proc.mjs';

const { Kafka, logLevel } = kafkajs;

// Our own loops do the retrying, against a deadline; kafkajs' back-off would only blur it.
function admin(brokers, { requestTimeout = 5000 } = {}) {
  return new Kafka({
    clientId: 'infra',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout,
    retry: { retries: 0 },
  }).admin();
}

async function withAdmin(brokers, fn, options) {
  const client = admin(brokers, options);
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.disconnect().catch(() => {});
  }
}

/** Java's String.hashCode, which Kafka uses to map a group id to a __consumer_offsets partition. */
function javaHash(text) {
  let hash = 0;
  for (let i = 0; i < text.length; i += 1) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}

/** One group id per __consumer_offsets partition, so every group coordinator gets checked. */
function groupsCovering(partitions) {
  const byPartition = new Map();
  for (let i = 0; byPartition.size < partitions; i += 1) {
    const groupId = `infra-readiness-${i}`;
    const hash = javaHash(groupId);
    const partition = (hash === -2147483648 ? 0 : Math.abs(hash)) % partitions;
    if (!byPartition.has(partition)) byPartition.set(partition, groupId);
  }
  return [...byPartition.values()];
}

/**
 * An open port is not a usable broker: right after start-up it answers "coordinator is
 * loading" while __consumer_offsets loads, and consumers cannot join. Ready means every
 * group coordinator answers an offset fetch (the first one also creates __consumer_offsets).
 */
async function coordinatorsReady(brokers) {
  await withAdmin(brokers, async (client) => {
    // Fills kafkajs' broker pool; without it the coordinator lookup finds no broker to ask.
    await client.fetchTopicMetadata();
    await client.fetchOffsets({ groupId: 'infra-readiness', topics: [] });
    const { topics } = await client.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
    const partitions = topics[0]?.partitions.length;
    if (!partitions) throw new Error('__consumer_offsets has no partitions yet');
    const groups = groupsCovering(partitions);
    await Promise.all(groups.map((groupId) => client.fetchOffsets({ groupId, topics: [] })));
  });
}

/**
 * Waits until the cluster's group coordinators work.
 * @param {string[]} brokers
 * @param {{ timeoutMs: number, died?: () => string | null, signal?: AbortSignal }} options
 *   `died` returns why the broker process is gone, to stop waiting for a corpse.
 * @returns {Promise<void>} throws { timedOut | died | aborted, lastError } as an Error
 */
export async function waitUntilReady(brokers, { timeoutMs, died = () => null, signal }) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    if (signal?.aborted) throw Object.assign(new Error('interrupted'), { aborted: true });
    const death = died();
    if (death) throw Object.assign(new Error(death), { died: true });
    try {
      await coordinatorsReady(brokers);
      return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw Object.assign(new Error(reason(lastError)), { timedOut: true, lastError });
    }
    await sleep(250);
  }
}

/**
 * Creates missing topics. An existing topic keeps its partition count (Kafka cannot
 * shrink one, and growing it would reshuffle keys), so a difference is reported instead.
 * @param {string[]} brokers
 * @param {{ topic: string, numPartitions: number }[]} wanted
 * @returns {Promise<{ created: string[], mismatched: { topic: string, has: number, wants: number }[] }>}
 */
export async function ensureTopics(brokers, wanted, { timeoutMs = 30_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await withAdmin(
        brokers,
        async (client) => {
          const existing = new Set(await client.listTopics());
          const missing = wanted.filter(({ topic }) => !existing.has(topic));
          if (missing.length) await client.createTopics({ topics: missing, waitForLeaders: true });
          const present = wanted.filter(({ topic }) => existing.has(topic));
          const mismatched = [];
          if (present.length) {
            const { topics } = await client.fetchTopicMetadata({
              topics: present.map(({ topic }) => topic),
            });
            for (const { name, partitions } of topics) {
              const wants = wanted.find(({ topic }) => topic === name).numPartitions;
              if (partitions.length !== wants) {
                mismatched.push({ topic: name, has: partitions.length, wants });
              }
            }
          }
          return { created: missing.map(({ topic }) => topic), mismatched };
        },
        { requestTimeout: 15_000 },
      );
    } catch (error) {
      if (Date.now() > deadline) {
        throw new InfraError(
          `Creating Kafka topics on ${brokers.join(',')} failed: ${reason(error)}.`,
        );
      }
      await sleep(500);
    }
  }
}

/** One quick look, for `status`. */
export async function probeKafka(brokers) {
  try {
    const cluster = await withAdmin(brokers, (client) => client.describeCluster(), {
      requestTimeout: 3000,
    });
    return { reachable: true, clusterId: cluster.clusterId };
  } catch (error) {
    return { reachable: false, detail: reason(error) };
  }
}
