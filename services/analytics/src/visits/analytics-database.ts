import { ServiceUnavailableException } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { INTERNAL_CALL_TIMEOUT_MS } from '@shortener/chassis';
import type { ManagedDataSource } from '@shortener/chassis-postgres';

/** The analytics schema's data source, or 503 while PostgreSQL is not connected yet. */
export function connected(database: ManagedDataSource): DataSource {
  if (!database.isConnected) throw new ServiceUnavailableException('Database unavailable');
  return database.dataSource;
}

/**
 * How long PostgreSQL lets a transaction that locks links or accounts wait for its next
 * statement before ending it (idle_in_transaction_session_timeout). A healthy one never waits
 * that long; one whose pod froze (a long pause, a hung node) would otherwise hold its links'
 * and accounts' rows, and every consumer of those accounts would wait with it, unable to
 * rejoin its group. Ended, its work is rolled back whole and done again when redelivered.
 */
export const IDLE_TRANSACTION_MS = 10_000;

/** Bounds the transaction's idle waits to IDLE_TRANSACTION_MS (its first statement). */
export async function boundIdleTransaction(manager: EntityManager): Promise<void> {
  await manager.query(
    `SELECT set_config('idle_in_transaction_session_timeout', '${IDLE_TRANSACTION_MS}', true)`,
  );
}

/**
 * Bounds each statement of a read transaction to the caller's wait (statement_timeout): a
 * read that outlasts it answers nobody, and would keep a core of the database busy for a
 * caller that left (an account's filtered statistics over millions of visits take seconds).
 * PostgreSQL cancels the statement (57014); the read fails.
 */
export async function boundRead(manager: EntityManager): Promise<void> {
  await manager.query(
    `SELECT set_config('statement_timeout', '${INTERNAL_CALL_TIMEOUT_MS}', true)`,
  );
}
