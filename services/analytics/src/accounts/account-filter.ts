import {
  accountStatsFiltersSchema,
  UTM_FILTERS,
  type AccountStatsFilters,
} from '@shortener/contracts';
import { referrerHost } from '../ingest/visit-batch';
import type { Queryable } from '../stats/stats-reads';

/** The column of analytics.visits each filter but the link's and the referrer's compares. */
const COLUMNS = {
  country: 'country',
  device: 'device',
  browser: 'browser',
  os: 'platform',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
} as const;

/** Every filter the account's analytics take. */
const FILTERS = Object.keys(accountStatsFiltersSchema.shape) as Array<keyof AccountStatsFilters>;

/**
 * An account's visits as conditions on analytics.visits: its links (those whose owner it is,
 * the one asked with `link`, those on the `domain` asked: another's counts nothing), and the
 * filters. Without the UTM columns on the visits (no visit carries its campaign), a UTM
 * filter matches nothing.
 */
export class AccountFilter {
  private constructor(
    private readonly owner: string,
    private readonly link: string | undefined,
    private readonly domain: string | undefined,
    private readonly equal: ReadonlyArray<readonly [column: string, value: string]>,
    private readonly referrers: { texts: string[]; none: boolean } | null,
    private readonly nothing: boolean,
  ) {}

  /**
   * The filter, or null when none is given; `since` (milliseconds) bounds the stored
   * referrers read for a referrer filter (as a link's filter reads them).
   */
  static async of(
    db: Queryable,
    owner: string,
    filters: AccountStatsFilters,
    utmColumns: boolean,
    since: number | null,
  ): Promise<AccountFilter | null> {
    const names = (Object.keys(COLUMNS) as Array<keyof typeof COLUMNS>).filter(
      (name) => filters[name] !== undefined,
    );
    const nothing = !utmColumns && UTM_FILTERS.some((name) => filters[name] !== undefined);
    const equal = names
      .filter((name) => utmColumns || !(UTM_FILTERS as readonly string[]).includes(name))
      .map((name) => [COLUMNS[name], filters[name]!] as const);
    const host = filters.referrer;
    if (AccountFilter.noneIn(filters)) return null;
    const filter = new AccountFilter(owner, filters.link, filters.domain, equal, null, nothing);
    if (host === undefined || nothing) return filter;
    const params: unknown[] = [];
    let where = filter.scope(params);
    if (since !== null) {
      params.push(new Date(since));
      where += ` AND created_at >= $${params.length}`;
    }
    const rows: Array<{ referrer: string | null }> = await db.query(
      `SELECT DISTINCT referrer FROM analytics.visits WHERE ${where}`,
      params,
    );
    const matching = rows.filter((row) => referrerHost(row.referrer) === host);
    return new AccountFilter(
      owner,
      filters.link,
      filters.domain,
      equal,
      {
        texts: matching.flatMap((row) => (row.referrer === null ? [] : [row.referrer])),
        none: matching.some((row) => row.referrer === null),
      },
      false,
    );
  }

  /** Whether the request names no filter (the account's rollups answer it whole). */
  static noneIn(filters: AccountStatsFilters): boolean {
    return FILTERS.every((name) => filters[name] === undefined);
  }

  /** Every visit of the owner's links: no filter. */
  static everything(owner: string): AccountFilter {
    return new AccountFilter(owner, undefined, undefined, [], null, false);
  }

  /** Whether only one link is read (its own rollups answer the filter `link` alone). */
  get onlyLink(): string | undefined {
    return this.equal.length === 0 &&
      this.referrers === null &&
      !this.nothing &&
      this.domain === undefined
      ? this.link
      : undefined;
  }

  /** The account's links (the one asked, those on the domain asked), values appended to `params`. */
  scope(params: unknown[]): string {
    params.push(this.owner);
    let owned = `SELECT url_id FROM analytics.link_owners WHERE owner_id = $${params.length}`;
    if (this.link !== undefined) {
      params.push(this.link);
      owned += ` AND url_id = $${params.length}`;
    }
    if (this.domain !== undefined) {
      params.push(this.domain);
      owned += ` AND domain = $${params.length}`;
    }
    return `url_id IN (${owned})`;
  }

  /** ` AND ` the filters' conditions, values appended to `params`. */
  sql(params: unknown[]): string {
    if (this.nothing) return ' AND false';
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
