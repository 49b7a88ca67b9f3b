import { Inject, Injectable } from '@nestjs/common';
import {
  LINKS_PAGE_SIZE,
  isShortCode,
  type InternalLink,
  type LinkList,
} from '@shortener/contracts';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { encodeLinkCursor, type LinkCursor, type LinkOrder } from './link-cursor';
import { connected, LINK_COLUMNS, toInternal, type LinkRow } from './link-rows';

/**
 * The owner's live links (not expired, not deleted), containing `search` in the destination,
 * the code or a branded link's back-half, any letter case, when it is not empty: the WHERE terms and their values.
 */
function liveOwnedBy(ownerId: string, search: string | undefined) {
  const values: unknown[] = [ownerId];
  const where = ['owner_id = $1', 'expires_at > now()', 'deleted_at IS NULL'];
  if (search) {
    values.push(search);
    // Both sides lower-cased by PostgreSQL, so that they fold letters the same way.
    const needle = `lower($${values.length})`;
    where.push(
      `(strpos(lower(original_url), ${needle}) > 0 OR strpos(lower(code), ${needle}) > 0` +
        // A branded link's back-half is found as its code is.
        ` OR strpos(lower(coalesce(slug, '')), ${needle}) > 0)`,
    );
  }
  return { values, where };
}

/** What the owner of links reads of them: their pages, codes and single links. */
@Injectable()
export class OwnedLinksService {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /**
   * A page of the owner's live links after the cursor, matching `search`, with the listing's
   * total. Keyset paging with ties ended by code, so pages neither repeat nor skip; a search
   * filters the owner's index order (no pg_trgm in PGlite, and one user's links are few).
   */
  async listOwned(
    ownerId: string,
    order: LinkOrder,
    after: LinkCursor | null,
    search: string | undefined,
  ): Promise<LinkList> {
    const { values, where } = liveOwnedBy(ownerId, search);
    const counted = connected(this.database).query<{ total: number }[]>(
      `SELECT count(*)::int AS total FROM links.links WHERE ${where.join(' AND ')}`,
      values,
    );
    const column = order === 'expiring' ? 'expires_at' : 'created_at';
    const pageValues = [...values, LINKS_PAGE_SIZE + 1];
    const pageWhere = [...where];
    if (after) {
      pageValues.push(after.micros.toString(), after.code);
      const [micros, code] = [pageValues.length - 1, pageValues.length];
      pageWhere.push(
        `(${column}, code) ${order === 'expiring' ? '>' : '<'} ` +
          `(timestamptz 'epoch' + $${micros}::bigint * interval '1 microsecond', $${code})`,
      );
    }
    const direction = order === 'expiring' ? 'ASC' : 'DESC';
    // One row more than a page tells whether another follows.
    const listed = connected(this.database).query<(LinkRow & { micros: string })[]>(
      `SELECT ${LINK_COLUMNS},
              (extract(epoch FROM ${column}) * 1000000)::bigint AS micros
       FROM links.links
       WHERE ${pageWhere.join(' AND ')}
       ORDER BY ${column} ${direction}, code ${direction}
       LIMIT $${values.length + 1}`,
      pageValues,
    );
    const [rows, [count]] = await Promise.all([listed, counted]);
    const page = rows.slice(0, LINKS_PAGE_SIZE);
    const last = page[page.length - 1];
    return {
      links: page.map(toInternal),
      nextCursor:
        rows.length > LINKS_PAGE_SIZE && last
          ? encodeLinkCursor({ order, micros: BigInt(last.micros), code: last.code })
          : null,
      total: count?.total ?? 0,
    };
  }

  /** Every live code of the owner, containing `search` when it is not empty; in no order. */
  async codesOwned(ownerId: string, search: string | undefined): Promise<string[]> {
    const { values, where } = liveOwnedBy(ownerId, search);
    const rows = await connected(this.database).query<{ code: string }[]>(
      `SELECT code FROM links.links WHERE ${where.join(' AND ')}`,
      values,
    );
    return rows.map((row) => row.code);
  }

  /** The owner's live links among `codes`, in no order: others' and the rest are left out. */
  async findOwned(ownerId: string, codes: string[]): Promise<InternalLink[]> {
    if (codes.length === 0) return [];
    const rows = await connected(this.database).query<LinkRow[]>(
      `SELECT ${LINK_COLUMNS} FROM links.links
       WHERE owner_id = $1 AND code = ANY($2::varchar[])
         AND expires_at > now() AND deleted_at IS NULL`,
      [ownerId, codes],
    );
    return rows.map(toInternal);
  }

  async getOwned(ownerId: string, code: string): Promise<InternalLink | null> {
    if (!isShortCode(code)) return null;
    const rows: LinkRow[] = await connected(this.database).query(
      `SELECT ${LINK_COLUMNS} FROM links.links
       WHERE code = $1 AND owner_id = $2 AND expires_at > now() AND deleted_at IS NULL`,
      [code, ownerId],
    );
    return rows[0] ? toInternal(rows[0]) : null;
  }
}
