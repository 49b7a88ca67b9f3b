import type { Kafka } from 'kafkajs';
import { commandTime } from '../operator-command';

/** One partition of a rewind: where the group was, where the time points, where it goes. */
interface PartitionRewind {
  partition: number;
  /** The group's committed offset before, or null when it had none for the partition. */
  committed: string | null;
  /** The first offset whose record is at or after the time (the end when none is). */
  atTime: string;
  /** What the group is set to: the earlier of the two. */
  offset: string;
}

interface RewindReport {
  group: string;
  topic: string;
  /** The time asked for, ISO 8601. */
  to: string;
  partitions: PartitionRewind[];
  /** Records the consumer will read again (or, with dryRun, would): sum of committed − offset. */
  replayed: string;
}

/** The group still has members: offsets can only be set on a group no consumer is in. */
export class GroupNotEmpty extends Error {}

/** The --to of the rewind command, in ms since the epoch: a past time with its zone. */
export function parseRewindTime(value: string | undefined, now = Date.now()): number {
  if (value === undefined) throw new Error('--to is required');
  const at = commandTime('to', value);
  if (at > now) throw new Error(`--to ${value} is in the future`);
  return at;
}

/** Group states in which no consumer holds a partition, so offsets may be set. */
const STOPPED_STATES = new Set(['Empty', 'Dead']);

/**
 * The earlier of where the group is and where the time points: a rewind never moves a
 * partition forward, which would skip visits the group has not stored yet (its committed
 * offset trails what it stored, never leads). A partition the group never committed starts
 * at the time's offset.
 */
export function rewoundOffset(committed: string | null, atTime: string): string {
  if (committed === null) return atTime;
  return BigInt(committed) < BigInt(atTime) ? committed : atTime;
}

/**
 * Sets the consumer group back to the first visit at or after `to` on every partition, after a
 * restore from a dump of that time (docs/operations/backups.md); the group must have no members.
 */
export async function rewindGroup(
  kafka: Kafka,
  { group, topic, to, dryRun }: { group: string; topic: string; to: number; dryRun: boolean },
): Promise<RewindReport> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    const state = groups[0]?.state ?? 'Dead';
    const members = groups[0]?.members.length ?? 0;
    if (!STOPPED_STATES.has(state) || members > 0) {
      throw new GroupNotEmpty(
        `the consumer group ${group} is ${state} with ${members} member(s): ` +
          'stop every analytics instance (scale it to 0) before rewinding it',
      );
    }
    const atTime = await admin.fetchTopicOffsetsByTimestamp(topic, to);
    const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    const committedOf = new Map(
      (committed?.partitions ?? []).map(({ partition, offset }) => [
        partition,
        // kafkajs answers -1 for a partition the group never committed.
        BigInt(offset) < 0n ? null : offset,
      ]),
    );
    const partitions = atTime
      .map(({ partition, offset }): PartitionRewind => {
        const was = committedOf.get(partition) ?? null;
        return { partition, committed: was, atTime: offset, offset: rewoundOffset(was, offset) };
      })
      .sort((a, b) => a.partition - b.partition);
    if (!dryRun) {
      await admin.setOffsets({
        groupId: group,
        topic,
        partitions: partitions.map(({ partition, offset }) => ({ partition, offset })),
      });
    }
    const replayed = partitions.reduce(
      (sum, { committed: was, offset }) => sum + (was === null ? 0n : BigInt(was) - BigInt(offset)),
      0n,
    );
    return { group, topic, to: new Date(to).toISOString(), partitions, replayed: String(replayed) };
  } finally {
    await admin.disconnect();
  }
}
