import { Registry } from 'prom-client';
import type { AnalyticsConfig } from '../config';
import type { StoreOutcome, VisitRow, VisitsRepository } from '../visits/visits.repository';
import { createIngestMetrics } from './ingest.metrics';
import pino from 'pino';
import { VISIT_EVENT_SCHEMA_VERSION, type VisitEvent } from '@shortener/contracts';
import { IngestService } from './ingest.service';
import type { VisitSource } from './visit-source';

/** Stores like PostgreSQL would: all or nothing per call, refusing rows whose referrer is BAD. */
class FakeVisits {
  readonly stored = new Set<string>();
  calls = 0;
  failWith: Error | undefined;

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
    });
  }
}

function rows(count: number, bad: number[]): VisitRow[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `id-${index}`,
    urlId: 'AbC1234',
    createdAt: '2026-11-23T10:00:00.000Z',
    ipAddress: '203.0.113.9',
    platform: 'Unknown',
    browser: 'Unknown',
    referrer: bad.includes(index) ? 'BAD' : null,
  }));
}

function service(visits: FakeVisits): IngestService {
  const metrics = createIngestMetrics({ registry: new Registry() } as never);
  const config = { INGEST_CHUNK_ROWS: 5000, USER_AGENT_CACHE_SIZE: 10, ANONYMIZE_IP: false };
  const source: VisitSource = { start: () => undefined, stop: () => Promise.resolve() };
  return new IngestService(
    visits as unknown as VisitsRepository,
    metrics,
    config as AnalyticsConfig,
    pino({ level: 'silent' }),
    source,
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

  it('stores what it can, and answers for the rest by origin with the reason, whatever the source', async () => {
    const visits = new FakeVisits();
    const unstored = await service(visits).ingest<string>([
      { value: Buffer.from(JSON.stringify(event(uuid(1)))), origin: 'bytes, good' },
      { value: Buffer.from('{not json'), origin: 'bytes, not JSON' },
      { event: event(uuid(2), 'BAD'), origin: 'object, refused by the database' },
      { event: event(uuid(3)), origin: 'object, good' },
    ]);
    expect(unstored.map(({ origin }) => origin)).toEqual([
      'bytes, not JSON',
      'object, refused by the database',
    ]);
    expect(unstored[0]?.reason).toBe('not JSON');
    expect(unstored[1]?.reason).toContain('SQLSTATE 23514');
    expect([...visits.stored].sort()).toEqual([uuid(1), uuid(3)]);
  });

  it('throws when storing fails for another reason, so the source offers the batch again', async () => {
    const visits = new FakeVisits();
    visits.failWith = Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
    await expect(service(visits).ingest([{ event: event(uuid(4)), origin: 'x' }])).rejects.toThrow(
      'connection reset',
    );
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
