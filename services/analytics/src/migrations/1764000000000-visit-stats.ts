import { randomBytes } from 'node:crypto';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CountryLookup } from '@shortener/visitor';
import { referrerHost } from '../ingest/visit-batch';

/** Distinct values mapped per statement while backfilling. */
const BACKFILL_SLICE = 5000;

/** Looks each distinct value of a column up in JS once, into a temporary mapping table. */
async function mapDistinct(
  runner: QueryRunner,
  table: string,
  column: string,
  map: (value: string | null) => string,
): Promise<void> {
  await runner.query(
    `CREATE TEMP TABLE ${table} (source text, mapped text NOT NULL) ON COMMIT DROP`,
  );
  const rows = (await runner.query(
    `SELECT DISTINCT ${column} AS value FROM analytics.visits`,
  )) as Array<{ value: string | null }>;
  for (let start = 0; start < rows.length; start += BACKFILL_SLICE) {
    const slice = rows.slice(start, start + BACKFILL_SLICE);
    await runner.query(`INSERT INTO ${table} SELECT * FROM unnest($1::text[], $2::text[])`, [
      slice.map((row) => row.value),
      slice.map((row) => map(row.value)),
    ]);
  }
  await runner.query(`CREATE INDEX ON ${table} (source)`);
}

/**
 * Visit statistics (bot flag, device, country, rollups, visitor-days). Existing visits are
 * backfilled; lacking their User-Agent, they count as `other` people.
 */
export class VisitStats1764000000000 implements MigrationInterface {
  name = 'VisitStats1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE analytics.visits
        ADD COLUMN bot boolean NOT NULL DEFAULT false,
        ADD COLUMN device text NOT NULL DEFAULT 'other',
        ADD COLUMN country char(2) NOT NULL DEFAULT 'ZZ'`);
    // Visits, people and bots per link and UTC hour: every series and total.
    await runner.query(`
      CREATE TABLE analytics.visit_hours (
        url_id varchar(16) NOT NULL,
        hour timestamptz NOT NULL,
        visits bigint NOT NULL,
        humans bigint NOT NULL,
        bots bigint NOT NULL,
        PRIMARY KEY (url_id, hour)
      )`);
    // Visits per link, UTC day, dimension (browser, os, device, referrer, country) and value.
    await runner.query(`
      CREATE TABLE analytics.visit_breakdowns (
        url_id varchar(16) NOT NULL,
        day date NOT NULL,
        dimension text NOT NULL,
        value text NOT NULL,
        visits bigint NOT NULL,
        PRIMARY KEY (url_id, day, dimension, value)
      )`);
    // The same per UTC hour, kept two days: the 24-hour range is exact to the hour.
    await runner.query(`
      CREATE TABLE analytics.visit_breakdown_hours (
        url_id varchar(16) NOT NULL,
        hour timestamptz NOT NULL,
        dimension text NOT NULL,
        value text NOT NULL,
        visits bigint NOT NULL,
        PRIMARY KEY (url_id, hour, dimension, value)
      )`);
    await runner.query(
      'CREATE INDEX visit_breakdown_hours_hour_idx ON analytics.visit_breakdown_hours (hour)',
    );
    // One row per visitor per link per UTC day (a keyed hash, never the address), with the
    // last visit of that day: visitor-days in a range.
    await runner.query(`
      CREATE TABLE analytics.visitor_days (
        url_id varchar(16) NOT NULL,
        day date NOT NULL,
        visitor bytea NOT NULL,
        last_seen timestamptz NOT NULL,
        PRIMARY KEY (url_id, day, visitor)
      )`);
    // Each UTC day's random hash key, shared by every instance, deleted a week after the day.
    await runner.query(`
      CREATE TABLE analytics.visitor_keys (
        day date PRIMARY KEY,
        key bytea NOT NULL
      )`);

    const countries = new CountryLookup();
    await mapDistinct(runner, 'backfill_countries', 'ip_address', (ip) =>
      countries.country(ip ?? ''),
    );
    await runner.query(`
      UPDATE analytics.visits v SET country = m.mapped
      FROM backfill_countries m
      WHERE m.source = v.ip_address AND m.mapped <> 'ZZ'`);
    await mapDistinct(runner, 'backfill_referrers', 'referrer', referrerHost);
    await runner.query(`
      INSERT INTO analytics.visit_hours (url_id, hour, visits, humans, bots)
      SELECT url_id, date_trunc('hour', created_at, 'UTC'), count(*), count(*), 0
      FROM analytics.visits GROUP BY 1, 2`);
    const breakdowns = (table: string, bucket: string, where: string) => `
      INSERT INTO analytics.${table}
      SELECT v.url_id, ${bucket}, d.dimension, d.value, count(*)
      FROM analytics.visits v
      JOIN backfill_referrers r ON r.source IS NOT DISTINCT FROM v.referrer
      CROSS JOIN LATERAL (VALUES
        ('browser', v.browser), ('os', v.platform), ('device', v.device),
        ('referrer', r.mapped), ('country', v.country::text)
      ) AS d(dimension, value)
      ${where}
      GROUP BY 1, 2, 3, 4`;
    await runner.query(
      breakdowns('visit_breakdowns', "(v.created_at AT TIME ZONE 'UTC')::date", ''),
    );
    await runner.query(
      breakdowns(
        'visit_breakdown_hours',
        "date_trunc('hour', v.created_at, 'UTC')",
        "WHERE v.created_at >= now() - interval '2 days'",
      ),
    );
    // No User-Agent was kept: a visitor-day of an old visit is its address, platform and
    // browser, hashed under a key made for this backfill and then forgotten.
    await runner.query(
      `INSERT INTO analytics.visitor_days (url_id, day, visitor, last_seen)
       SELECT url_id, (created_at AT TIME ZONE 'UTC')::date,
              decode(md5($1 || ip_address || chr(10) || platform || chr(10) || browser), 'hex'),
              max(created_at)
       FROM analytics.visits GROUP BY 1, 2, 3`,
      [randomBytes(16).toString('hex')],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE analytics.visitor_keys');
    await runner.query('DROP TABLE analytics.visitor_days');
    await runner.query('DROP TABLE analytics.visit_breakdown_hours');
    await runner.query('DROP TABLE analytics.visit_breakdowns');
    await runner.query('DROP TABLE analytics.visit_hours');
    await runner.query(
      'ALTER TABLE analytics.visits DROP COLUMN bot, DROP COLUMN device, DROP COLUMN country',
    );
  }
}
