import { Registry } from 'prom-client';
import type { AnalyticsConfig } from '../config';
import type { IngestRepository, StoreOutcome, VisitRow } from './ingest.repository';
import { createIngestMetrics } from './ingest.metrics';
import pino from 'pino';
import {
  encodeVisits,
  visitRecordOf,
  VISIT_EVENT_SCHEMA_VERSION,
  type StoredVisits,
  type VisitEvent,
} from '@shortener/contracts';
import { IngestService } from './ingest.service';
import { noticesOf } from './visit-notifier';
import type { VisitSource } from './visit-source';

/** Stores like PostgreSQL would: all or nothing per call, refusing rows whose referrer is BAD. */
class FakeVisits {
  readonly stored = new Set<string>();
  calls = 0;
  failWith: Error | undefined;

  keysFor(offered: ReadonlyMap<string, Buffer>): Promise<Map<string, Buffer>> {
    return Promise.resolve(new Map(offered));
  }

  /** The parameters the real repository would make ahead; the fake needs none. */
  prepareVisits(rows: readonly VisitRow[], chunkRows: number) {
    return Promise.resolve({ rows, chunkRows, chunks: [], rollups: [] });
  }

  storeVisits(rows: readonly VisitRow[]): Promise<StoreOutcome> {
    this.calls += 1;
    if (this.failWith) return Promise.reject(this.failWith);
    const bad = rows.find((row) => row.referrer === 'BAD');
    if (bad) {
      return Promise.reject(
        Object.assign(new Error(`violates check constraint (${bad.id})`), { code: '23514' }),
      );
    }
    const fresh = rows.filter((row) => !this.stored.has(row.id));
    for (const row of fresh) this.stored.add(row.id);
    return Promise.resolve({
      stored: fresh.length,
      duplicates: rows.length - fresh.length,
      ofDeletedLinks: 0,
      inserted: fresh,
      owners: new Map<string, string>(),
    });
  }
}

function rows(count: number, bad: number[]): VisitRow[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `id-${index}`,
    urlId: 'AbC1234',
    timestamp: Date.parse('2026-11-23T10:00:00.000Z'),
    ipAddress: '203.0.113.9',
    platform: 'Unknown',
    browser: 'Unknown',
    referrer: bad.includes(index) ? 'BAD' : null,
    bot: false,
    device: 'desktop',
    country: 'ZZ',
    referrerHost: '(direct)',
    visitor: Buffer.alloc(16),
  }));
}

function service(visits: FakeVisits, notices: StoredVisits[] = []): IngestService {
  const metrics = createIngestMetrics({ registry: new Registry() } as never);
  const config = { INGEST_CHUNK_ROWS: 5000, USER_AGENT_CACHE_SIZE: 10, ANONYMIZE_IP: false };
  const source: VisitSource = { start: () => undefined, stop: () => Promise.resolve() };
  return new IngestService(
    visits as unknown as IngestRepository,
    metrics,
    config as AnalyticsConfig,
    pino({ level: 'silent' }),
    source,
    { stored: (rows) => notices.push(...noticesOf(rows)) },
  );
}

describe('IngestService.ingest', () => {
  const event = (id: string, referrer: string | null = null): VisitEvent => ({
    schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
    id,
    urlID: 'AbC1234',
    timestamp: Date.parse('2026-11-23T10:00:00.000Z'),
    ip: '203.0.113.9',
    userAgent: 'ua',
    referrer,
  });
  const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  /** As the embedded bus hands visits over: a packed record's bytes. */
  const packed = (...events: VisitEvent[]) => visitRecordOf(encodeVisits(events));

  it('stores what it can, and answers for the rest by origin with the reason, whatever the source', async () => {
    const visits = new FakeVisits();
    const unstored = await service(visits).ingest<string>([
      { value: Buffer.from(JSON.stringify(event(uuid(1)))), origin: 'bytes, good' },
      { value: Buffer.from('{not json'), origin: 'bytes, not JSON' },
      { value: packed(event(uuid(2), 'BAD')), origin: 'record, refused by the database' },
      { value: packed(event(uuid(3))), origin: 'record, good' },
    ]);
    expect(unstored.map(({ origin }) => origin)).toEqual([
      'bytes, not JSON',
      'record, refused by the database',
    ]);
    expect(unstored[0]?.reason).toBe('not JSON');
    expect(unstored[1]?.reason).toContain('SQLSTATE 23514');
    expect([...visits.stored].sort()).toEqual([uuid(1), uuid(3)]);
  });

  it('tells the live streams of what it stored, once committed, and never of a redelivery', async () => {
    const visits = new FakeVisits();
    const notices: StoredVisits[] = [];
    const ingest = service(visits, notices);
    const first = event(uuid(5), 'https://example.com/');
    await ingest.ingest([
      { value: packed(first), origin: 1 },
      { value: packed({ ...event(uuid(6)), urlID: 'XyZ9876' }), origin: 2 },
    ]);
    await ingest.ingest([{ value: packed(first), origin: 3 }]);
    expect(
      notices.map((notice) => [notice.urlID, notice.visits.map((visit) => visit._id)]),
    ).toEqual([
      ['AbC1234', [uuid(5)]],
      ['XyZ9876', [uuid(6)]],
    ]);
    expect(notices[0]?.visits[0]).toEqual({
      _id: uuid(5),
      createdAt: '2026-11-23T10:00:00.000Z',
      userAgent: { platform: 'Unknown', browser: 'Unknown' },
      ipAddress: '203.0.113.9',
      country: 'ZZ',
      device: 'bot',
      bot: true,
      // Reduced to its host, as the stats count it.
      referrer: 'example.com',
      utmSource: null,
      utmMedium: null,
      utmCampaign: null,
    });
  });

  it('throws when storing fails for another reason, so the source offers the batch again', async () => {
    const visits = new FakeVisits();
    visits.failWith = Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
    await expect(
      service(visits).ingest([{ value: packed(event(uuid(4))), origin: 'x' }]),
    ).rejects.toThrow('connection reset');
  });
});

describe('IngestService.storeIsolating', () => {
  it('stores a batch PostgreSQL accepts in one call', async () => {
    const visits = new FakeVisits();
    expect(await service(visits).storeIsolating(rows(1000, []), 0)).toEqual([]);
    expect(visits.stored.size).toBe(1000);
    expect(visits.calls).toBe(1);
  });

  it.each([[[0]], [[999]], [[500]], [[3, 4]], [[0, 1, 2, 997, 998, 999]], [[17, 256, 731]]])(
    'splits a batch until each refused row (%p of 1000) is alone; stores all the others',
    async (bad) => {
      const visits = new FakeVisits();
      const refused = await service(visits).storeIsolating(rows(1000, bad), 0);
      expect(refused.map((row) => row.index)).toEqual(bad);
      for (const { index, reason } of refused) {
        expect(reason).toBe(`database: violates check constraint (id-${index}) (SQLSTATE 23514)`);
      }
      expect(visits.stored.size).toBe(1000 - bad.length);
      // About 2·log2(1000) ≈ 20 statements per bad row, never one per row.
      expect(visits.calls).toBeLessThanOrEqual(1 + bad.length * 2 * Math.ceil(Math.log2(1000)));
    },
  );

  it('throws, refusing nothing, when the database is away: the caller retries the whole batch', async () => {
    const visits = new FakeVisits();
    visits.failWith = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    await expect(service(visits).storeIsolating(rows(10, [4]), 0)).rejects.toThrow('ECONNREFUSED');
    expect(visits.calls).toBe(1);
  });

  it('throws when the database goes away in the middle of splitting; a retry finishes the job', async () => {
    const visits = new FakeVisits();
    const ingest = service(visits);
    const original = visits.storeVisits.bind(visits);
    let call = 0;
    visits.storeVisits = (batch) => {
      call += 1;
      if (call === 4) {
        return Promise.reject(
          Object.assign(new Error('terminating connection'), { code: '57P01' }),
        );
      }
      return original(batch);
    };
    const batch = rows(64, [40]);
    await expect(ingest.storeIsolating(batch, 0)).rejects.toThrow('terminating connection');
    const refused = await ingest.storeIsolating(batch, 0);
    expect(refused.map((row) => row.index)).toEqual([40]);
    expect(visits.stored.size).toBe(63);
  });
});
