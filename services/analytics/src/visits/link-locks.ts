import type { EntityManager } from 'typeorm';

/**
 * Advisory locks per link (hashed into a fixed number), shared to store and exclusive to delete,
 * so a visit stored during a delete cannot survive it; two-key, apart from the migrations'.
 */
const LOCK_SPACE = 0x616e6c74;
const LOCK_BUCKETS = 256;

function lockBuckets(urlIds: Iterable<string>): number[] {
  const buckets = new Set<number>();
  for (const urlId of urlIds) {
    let hash = 0x811c9dc5;
    for (let index = 0; index < urlId.length; index += 1) {
      hash = Math.imul(hash ^ urlId.charCodeAt(index), 0x01000193);
    }
    buckets.add((hash >>> 0) % LOCK_BUCKETS);
  }
  // One order everywhere, so two lockers never wait on each other in a cycle.
  return [...buckets].sort((a, b) => a - b);
}

/** Takes the links' locks for the rest of the transaction: shared to store, exclusive to delete. */
export async function lockLinks(
  manager: EntityManager,
  urlIds: Iterable<string>,
  mode: 'shared' | 'exclusive',
): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await manager.query(`SELECT ${lock}($1, bucket) FROM unnest($2::int[]) AS bucket`, [
    LOCK_SPACE,
    lockBuckets(urlIds),
  ]);
}
