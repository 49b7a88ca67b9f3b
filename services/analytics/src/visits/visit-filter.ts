import type { StatsFilters } from '@shortener/contracts';
import { referrerHost } from '../ingest/visit-batch';
import type { Queryable } from './visit-partitions';

/** The column of analytics.visits each filter but the referrer's is compared with. */
const COLUMNS = {
  country: 'country',
  device: 'device',
  browser: 'browser',
  os: 'platform',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
} as const;

/** The stored referrers a referrer filter matches: these texts, and no referrer when `none`. */
interface StoredReferrers {
  texts: string[];
  none: boolean;
}

/**
 * The filters as conditions on a link's visits. A visit keeps its referrer as the request
 * named it, and the stats list it by host (referrerHost): the referrer filter is the link's
 * stored referrers whose host is the one asked, found with the same function.
 */
export class VisitFilter {
  private constructor(
    private readonly equal: ReadonlyArray<readonly [column: string, value: string]>,
    private readonly referrers: StoredReferrers | null,
  ) {}

  /**
   * The filter of a link's visits, or null when no filter is given; `since` (milliseconds),
   * when the filter serves visits from then on only, bounds the stored referrers read.
   */
  static async of(
    db: Queryable,
    code: string,
    filters: StatsFilters,
    since: number | null = null,
  ): Promise<VisitFilter | null> {
    const equal = (Object.keys(COLUMNS) as Array<keyof typeof COLUMNS>)
      .filter((name) => filters[name] !== undefined)
      .map((name) => [COLUMNS[name], filters[name]!] as const);
    const host = filters.referrer;
    if (equal.length === 0 && host === undefined) return null;
    let referrers: StoredReferrers | null = null;
    if (host !== undefined) {
      const bounded = since === null ? '' : ' AND created_at >= $2';
      const rows = (await db.query(
        `SELECT DISTINCT referrer FROM analytics.visits WHERE url_id = $1${bounded}`,
        since === null ? [code] : [code, new Date(since)],
      )) as Array<{ referrer: string | null }>;
      const matching = rows.filter((row) => referrerHost(row.referrer) === host);
      referrers = {
        texts: matching.flatMap((row) => (row.referrer === null ? [] : [row.referrer])),
        none: matching.some((row) => row.referrer === null),
      };
    }
    return new VisitFilter(equal, referrers);
  }

  /** ` AND ` the conditions, their values appended to `params` (numbered after those in it). */
  sql(params: unknown[]): string {
    let sql = '';
    for (const [column, value] of this.equal) {
      params.push(value);
      sql += ` AND ${column} = $${params.length}`;
    }
    if (this.referrers) {
      params.push(this.referrers.texts);
      const texts = `referrer = ANY($${params.length}::text[])`;
      sql += this.referrers.none ? ` AND (${texts} OR referrer IS NULL)` : ` AND ${texts}`;
    }
    return sql;
  }
}
