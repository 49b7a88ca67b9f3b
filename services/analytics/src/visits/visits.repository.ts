import { Inject, Injectable } from '@nestjs/common';
import { isShortCode, type StatsFilters, type Visit } from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { visitReferrer } from '../ingest/visit-batch';
import { connected } from './analytics-database';
import type { VisitCursor } from './visit-cursor';
import { VisitFilter } from './visit-filter';

interface StoredVisit {
  visit: Visit;
  cursor: VisitCursor;
}

interface VisitRecord {
  id: string;
  created_at: Date;
  ip_address: string;
  platform: string;
  browser: string;
  bot: boolean;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
}

/** The visits' read side: a link's visits page by page, and visit counts. */
@Injectable()
export class VisitsRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /**
   * One page of a link's visits (those the filters match), newest first, after the cursor
   * when there is one.
   */
  async page(
    code: string,
    limit: number,
    after: VisitCursor | null,
    filters: StatsFilters = {},
  ): Promise<StoredVisit[]> {
    const db = connected(this.database);
    const filter = await VisitFilter.of(db, code, filters);
    const params: unknown[] = [code, limit];
    let where = 'url_id = $1';
    if (after) {
      params.push(after.createdAt.toISOString(), after.id);
      where += ' AND (created_at, id) < ($3::timestamptz, $4::uuid)';
    }
    where += filter?.sql(params) ?? '';
    const rows: VisitRecord[] = await db.query(
      `SELECT id, created_at, ip_address, platform, browser, bot, referrer,
              utm_source, utm_medium, utm_campaign
       FROM analytics.visits
       WHERE ${where}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
    return rows.map((row) => ({
      visit: {
        _id: row.id,
        createdAt: row.created_at.toISOString(),
        userAgent: { platform: row.platform, browser: row.browser },
        ipAddress: row.ip_address,
        bot: row.bot,
        referrer: visitReferrer(row.referrer),
        utmSource: row.utm_source,
        utmMedium: row.utm_medium,
        utmCampaign: row.utm_campaign,
      },
      cursor: { createdAt: row.created_at, id: row.id },
    }));
  }

  /** Every asked code gets a count, 0 when it has no visits. */
  async counts(codes: readonly string[]): Promise<Record<string, number>> {
    // A Map, then own entries: a code may be `__proto__`, which assigning to `{}` would lose.
    const counts = new Map<string, number>(codes.map((code) => [code, 0]));
    const asked = [...new Set(codes.filter(isShortCode))];
    if (asked.length > 0) {
      const rows: { url_id: string; visit_count: string }[] = await connected(this.database).query(
        'SELECT url_id, visit_count FROM analytics.link_stats WHERE url_id = ANY($1::varchar[])',
        [asked],
      );
      for (const row of rows) counts.set(row.url_id, Number(row.visit_count));
    }
    return Object.fromEntries(counts);
  }
}
