import type { QueryRunner } from 'typeorm';
import { LOCK_WAIT_MS, type Queryable, type Transact } from '../visits/visit-partitions';

/** One step that locked the visits table: how long it waited for the lock, how long it held it. */
export interface LockStep {
  step: string;
  waitedMs: number;
  heldMs: number;
  tries: number;
}

/** Tries at taking a lock that others hold, LOCK_WAIT_MS each, before the migration fails. */
const LOCK_TRIES = 60;

/** The SQLSTATE of a failed query, through TypeORM's wrapping. */
export function sqlState(error: unknown): unknown {
  return (((error as { driverError?: unknown }).driverError ?? error) as { code?: unknown }).code;
}

/**
 * A lock refused within lock_timeout (55P03: someone held it), or a deadlock PostgreSQL broke
 * by aborting this side (40P01): the step changed nothing, so it is tried again.
 */
function lockRefused(error: unknown): boolean {
  const state = sqlState(error);
  return state === '55P03' || state === '40P01';
}

/**
 * Runs a migration's step in one transaction under a lock on `analytics.visits`, waiting at
 * most LOCK_WAIT_MS each try (so nobody queues behind the request for longer) and trying
 * again after a pause; answers how long it waited and held.
 */
export async function lockedStep(
  transact: Transact,
  step: string,
  mode: string,
  work: (db: Queryable) => Promise<void>,
): Promise<LockStep> {
  for (let tries = 1; ; tries += 1) {
    const began = performance.now();
    let locked = began;
    try {
      await transact(async (db) => {
        await db.query(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`);
        await db.query(`LOCK TABLE analytics.visits IN ${mode} MODE`);
        locked = performance.now();
        await work(db);
      });
      return { step, waitedMs: locked - began, heldMs: performance.now() - locked, tries };
    } catch (error) {
      if (!lockRefused(error) || tries >= LOCK_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * Math.min(tries, 5)));
    }
  }
}

/** A transaction on the migration's own connection (TypeORM's QueryRunner). */
export function runnerTransact(
  runner: Queryable &
    Pick<QueryRunner, 'startTransaction' | 'commitTransaction' | 'rollbackTransaction'>,
): Transact {
  return async (work) => {
    await runner.startTransaction();
    try {
      const result = await work(runner);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    }
  };
}
