// The ingest benchmarks' baseline: rows written by raw multi-row INSERTs into a plain table,
// in the consumer's chunk size, on one connection: no rollups, no checks, no Kafka.
import { randomUUID } from 'node:crypto';

/** Rows per statement, as the analytics consumer (INGEST_CHUNK_ROWS). */
const CHUNK = 5000;

/**
 * Writes `count` rows made by `eventAt(i)` (a visit event) into a scratch table, drops it,
 * and answers rows per second.
 */
export async function rawInsert(db, count, eventAt) {
  const table = `bench_raw_visits_${randomUUID().slice(0, 8)}`;
  await db.query(`CREATE TABLE ${table} (
    id uuid PRIMARY KEY, url_id varchar(16) NOT NULL, created_at timestamptz NOT NULL,
    ip_address varchar(64) NOT NULL, platform text NOT NULL, browser text NOT NULL,
    referrer text)`);
  try {
    const began = performance.now();
    for (let start = 0; start < count; start += CHUNK) {
      const rows = Array.from({ length: Math.min(CHUNK, count - start) }, (_, j) =>
        eventAt(start + j),
      );
      await db.query(
        `INSERT INTO ${table} SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::timestamptz[],
           $4::varchar[], $5::text[], $6::text[], $7::text[]) ON CONFLICT (id) DO NOTHING`,
        [
          rows.map((row) => row.id),
          rows.map((row) => row.urlID),
          rows.map((row) => new Date(row.timestamp).toISOString()),
          rows.map((row) => row.ip),
          rows.map(() => 'Windows'),
          rows.map(() => 'Chrome'),
          rows.map((row) => row.referrer),
        ],
      );
    }
    return count / ((performance.now() - began) / 1000);
  } finally {
    await db.query(`DROP TABLE ${table}`);
  }
}
