import { randomBytes, randomUUID } from 'node:crypto';
import type { ManagedDataSource } from '@shortener/chassis-postgres';
import { IngestRepository, type VisitRow } from '../ingest/ingest.repository';
import { ownManagedAnalyticsDatabase } from '../migrations/own-database';
import { PartitionsRepository } from './partitions.repository';
import { PurgesRepository } from './purges.repository';
import { monthTables } from './visit-partitions';

// The partitioned visits on a database of their own (made and dropped here), through the
// service's own repositories: one event stored once whatever month it claims, the months
// ahead made, a month past the retention dropped with its rollups kept.

function visit(urlId: string, at: string, id = randomUUID()): VisitRow {
  return {
    id,
    urlId,
    timestamp: Date.parse(at),
    ipAddress: '203.0.113.7',
    platform: 'Windows',
    browser: 'Chrome',
    referrer: null,
    bot: false,
    device: 'desktop',
    country: 'US',
    referrerHost: '(direct)',
    visitor: randomBytes(16),
  };
}

/** The SQLSTATE a store was refused with (the ingest service dead-letters such rows). */
function refusal(storing: Promise<unknown>): Promise<string> {
  return storing.then(
    () => 'stored',
    (error: { driverError?: { code?: string }; message?: string }) =>
      error.driverError?.code ?? error.message ?? 'refused',
  );
}

describe('monthly visit partitions', () => {
  const own = ownManagedAnalyticsDatabase('analytics_months');
  let database: ManagedDataSource;
  let ingest: IngestRepository;
  let partitions: PartitionsRepository;

  const count = async (sql: string, params: unknown[] = []): Promise<number> => {
    const [row]: Array<{ n: number }> = await database.dataSource.query(sql, params);
    return row?.n ?? -1;
  };
  const partitionNames = async (): Promise<string[]> => {
    const rows: Array<{ name: string }> = await database.dataSource.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'analytics.visits'::regclass ORDER BY 1`,
    );
    return rows.map((row) => row.name);
  };

  beforeAll(async () => {
    database = await own.open();
    ingest = new IngestRepository(database, { VISIT_RETENTION_MONTHS: undefined });
    partitions = new PartitionsRepository(database);
    // Months the tests store into, made as the round makes them for "now".
    await partitions.maintain(undefined, new Date('2026-09-15T00:00:00Z'));
  });

  afterAll(() => own.close());

  it('stores with statement parameters made ahead exactly as without them', async () => {
    const sums = async (urlId: string) => ({
      visits: await count('SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = $1', [
        urlId,
      ]),
      linkStats: await count(
        'SELECT coalesce(sum(visit_count), 0)::int AS n FROM analytics.link_stats WHERE url_id = $1',
        [urlId],
      ),
      hours: await count(
        'SELECT coalesce(sum(visits), 0)::int AS n FROM analytics.visit_hours WHERE url_id = $1',
        [urlId],
      ),
      visitorDays: await count(
        'SELECT count(*)::int AS n FROM analytics.visitor_days WHERE url_id = $1',
        [urlId],
      ),
    });
    const at = (minute: number) => `2026-10-05T10:${String(minute).padStart(2, '0')}:00Z`;
    const fresh = Array.from({ length: 5 }, (_, i) => visit('Prep001', at(i)));
    // All fresh: the prepared parameters serve (chunks of 2).
    expect(await ingest.storeVisits(fresh, 2, await ingest.prepareVisits(fresh, 2))).toMatchObject({
      stored: 5,
      duplicates: 0,
      ofDeletedLinks: 0,
    });
    expect(await sums('Prep001')).toEqual({ visits: 5, linkStats: 5, hours: 5, visitorDays: 5 });

    // Two stored before: only the three new ones count anywhere.
    const again = [
      ...fresh.slice(0, 2),
      ...Array.from({ length: 3 }, (_, i) => visit('Prep001', at(10 + i))),
    ];
    const outcome = await ingest.storeVisits(again, 2, await ingest.prepareVisits(again, 2));
    expect(outcome).toMatchObject({ stored: 3, duplicates: 2, ofDeletedLinks: 0 });
    expect(outcome.inserted.map((row) => row.id)).toEqual(again.slice(2).map((row) => row.id));
    expect(await sums('Prep001')).toEqual({ visits: 8, linkStats: 8, hours: 8, visitorDays: 8 });

    // All stored before: nothing counts.
    expect(await ingest.storeVisits(again, 5, await ingest.prepareVisits(again, 5))).toMatchObject({
      stored: 0,
      duplicates: 5,
    });
    expect(await sums('Prep001')).toEqual({ visits: 8, linkStats: 8, hours: 8, visitorDays: 8 });

    // A deleted link's visits are dropped, the others stored.
    await database.dataSource.query(
      `INSERT INTO analytics.deleted_links (url_id, deleted_at) VALUES ('Gone001', now())`,
    );
    const mixed = [visit('Gone001', at(20)), visit('Prep001', at(21)), visit('Gone001', at(22))];
    expect(await ingest.storeVisits(mixed, 2, await ingest.prepareVisits(mixed, 2))).toMatchObject({
      stored: 1,
      duplicates: 0,
      ofDeletedLinks: 2,
    });
    expect(await sums('Prep001')).toEqual({ visits: 9, linkStats: 9, hours: 9, visitorDays: 9 });
    expect(await sums('Gone001')).toEqual({ visits: 0, linkStats: 0, hours: 0, visitorDays: 0 });
  });

  it('stores an event once when it comes again claiming the next month', async () => {
    const id = randomUUID();
    const first = await ingest.storeVisits([visit('Bound01', '2026-10-31T23:59:59.999Z', id)], 10);
    const again = await ingest.storeVisits([visit('Bound01', '2026-11-01T00:00:00.000Z', id)], 10);
    expect([first.stored, first.duplicates]).toEqual([1, 0]);
    expect([again.stored, again.duplicates]).toEqual([0, 1]);
    expect(await count('SELECT count(*)::int AS n FROM analytics.visits WHERE id = $1', [id])).toBe(
      1,
    );
    expect(
      await count(
        "SELECT visit_count::int AS n FROM analytics.link_stats WHERE url_id = 'Bound01'",
      ),
    ).toBe(1);
    // The same again in one batch with a fresh event: only the fresh one is stored.
    const mixed = await ingest.storeVisits(
      [visit('Bound01', '2026-11-01T00:00:00.000Z', id), visit('Bound01', '2026-11-02T10:00:00Z')],
      1,
    );
    expect([mixed.stored, mixed.duplicates]).toEqual([1, 1]);

    // A deleted link's visits take their event ids with them.
    expect(await new PurgesRepository(database).deleteLinks(['Bound01'])).toBe(2);
    expect(
      await count('SELECT count(*)::int AS n FROM analytics.visit_ids WHERE id = $1', [id]),
    ).toBe(0);
  });

  it('makes the partition of a late visit of a month without one as it stores it', async () => {
    const now = new Date();
    const past = new Date(Date.UTC(now.getUTCFullYear() - 2, now.getUTCMonth(), 15));
    const name = `visits_${past.getUTCFullYear()}_${String(past.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(await partitionNames()).not.toContain(name);
    const late = visit('Late001', past.toISOString());
    expect((await ingest.storeVisits([late], 10)).stored).toBe(1);
    expect(await partitionNames()).toContain(name);
    expect(
      await count(`SELECT count(*)::int AS n FROM analytics.${name} WHERE id = $1`, [late.id]),
    ).toBe(1);
  });

  it('makes the current month and three ahead, once', async () => {
    const round = await partitions.maintain(undefined, new Date('2031-01-10T08:00:00Z'));
    expect(round.created).toEqual([
      'visits_2031_01',
      'visits_2031_02',
      'visits_2031_03',
      'visits_2031_04',
    ]);
    expect(round.dropped).toEqual([]);
    expect(await partitionNames()).toEqual(expect.arrayContaining(round.created));
    const stored = await ingest.storeVisits([visit('Ahead01', '2031-04-30T23:00:00Z')], 10);
    expect(stored.stored).toBe(1);
    // A month not made (yet) has nowhere to go: refused, so it is dead-lettered, not lost.
    expect(await refusal(ingest.storeVisits([visit('Ahead01', '2031-05-01T00:00:00Z')], 10))).toBe(
      '23514',
    );
    const again = await partitions.maintain(undefined, new Date('2031-01-20T08:00:00Z'));
    expect(again.created).toEqual([]);
  });

  it('drops a month past the retention a partition at a time, keeping its rollups', async () => {
    const old = [
      visit('Old0001', '2026-09-03T10:00:00Z'),
      visit('Old0001', '2026-09-20T11:00:00Z'),
    ];
    const kept = visit('Old0001', '2026-11-05T12:00:00Z');
    await ingest.storeVisits([...old, kept], 10);
    const hoursBefore = await count(
      "SELECT sum(visits)::int AS n FROM analytics.visit_hours WHERE url_id = 'Old0001'",
    );
    expect(hoursBefore).toBe(3);

    // Kept: the four whole months before March 2027, and March.
    const round = await partitions.maintain(4, new Date('2027-03-01T00:00:00Z'));
    expect(round.dropped).toEqual(expect.arrayContaining(['visits_2026_09', 'visits_2026_10']));
    expect(round.dropped).not.toContain('visits_2026_11');
    const names = await partitionNames();
    expect(names).not.toContain('visits_2026_09');
    expect(names).toContain('visits_2026_11');
    expect(names).toContain('visits_2027_06');

    // The month's raw visits and their event ids gone; the rollups and the count stay.
    expect(
      await count("SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = 'Old0001'"),
    ).toBe(1);
    expect(
      await count('SELECT count(*)::int AS n FROM analytics.visit_ids WHERE id = ANY($1::uuid[])', [
        old.map((row) => row.id),
      ]),
    ).toBe(0);
    expect(
      await count('SELECT count(*)::int AS n FROM analytics.visit_ids WHERE id = $1', [kept.id]),
    ).toBe(1);
    expect(
      await count(
        "SELECT sum(visits)::int AS n FROM analytics.visit_hours WHERE url_id = 'Old0001'",
      ),
    ).toBe(3);
    expect(
      await count(
        "SELECT sum(visits)::int AS n FROM analytics.visit_breakdowns WHERE url_id = 'Old0001' AND dimension = 'browser'",
      ),
    ).toBe(3);
    expect(
      await count(
        "SELECT visit_count::int AS n FROM analytics.link_stats WHERE url_id = 'Old0001'",
      ),
    ).toBe(3);

    // A late copy of a dropped month's visit (past the retention, by any clock this runs on)
    // finds no partition, and none is made for it: refused (and dead-lettered by the ingest
    // service), storing and counting nothing.
    const retaining = new IngestRepository(database, { VISIT_RETENTION_MONTHS: 1 });
    expect(await refusal(retaining.storeVisits([old[0]!], 10))).toBe('23514');
    expect(await partitionNames()).not.toContain('visits_2026_09');
    expect(
      await count(
        "SELECT visit_count::int AS n FROM analytics.link_stats WHERE url_id = 'Old0001'",
      ),
    ).toBe(3);
  });

  it('finishes a drop broken off after the detach', async () => {
    await partitions.maintain(undefined, new Date('2027-03-01T00:00:00Z'));
    const broken = visit('Brk0001', '2027-01-15T00:00:00Z');
    await ingest.storeVisits([broken], 10);
    const db = database.dataSource;
    // The detach alone, as a drop stopped right after it leaves it.
    await db.query('ALTER TABLE analytics.visits DETACH PARTITION analytics.visits_2027_01');
    const [left] = (await monthTables(db)).filter((table) => table.name === 'visits_2027_01');
    expect(left).toMatchObject({ attached: false });

    const round = await partitions.maintain(2, new Date('2027-04-01T00:00:00Z'));
    expect(round.dropped).toContain('visits_2027_01');
    expect(
      await count("SELECT count(*)::int AS n FROM pg_class WHERE relname = 'visits_2027_01'"),
    ).toBe(0);
    expect(
      await count('SELECT count(*)::int AS n FROM analytics.visit_ids WHERE id = $1', [broken.id]),
    ).toBe(0);
  });
});
