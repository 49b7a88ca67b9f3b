import { BadRequestException, ForbiddenException } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { ALIAS_MESSAGES, isShortCode, LINK_RULES_MESSAGES } from '@shortener/contracts';
import { checkTargetUrl } from '@shortener/link-cache';
import { checkDomainHost } from '../domains/domain-host';

/** Shorten's rules for a destination, for a new link and an edited one alike. */
export function targetUrl(rawUrl: unknown, ownHosts: readonly string[]): string {
  const target = checkTargetUrl(rawUrl, ownHosts);
  if (!target.ok) {
    // A rule applied to a URL the web page accepts is a 403: the page shows its message.
    throw target.reason === 'refused'
      ? new ForbiddenException(target.message)
      : new BadRequestException(target.message);
  }
  return target.url;
}

/**
 * The host of a `domain` a link is to live on: one of the owner's live, verified domains, or
 * a 400 saying which it is not (another account's reads as unknown: nothing is revealed).
 */
export async function ownVerifiedDomain(
  db: Pick<DataSource, 'query'>,
  ownerId: string | null,
  raw: unknown,
): Promise<string> {
  const check = typeof raw === 'string' ? checkDomainHost(raw, []) : null;
  if (!check?.ok) throw new BadRequestException(LINK_RULES_MESSAGES.domain);
  const { host } = check;
  if (ownerId === null) throw new BadRequestException(LINK_RULES_MESSAGES.domainUnknown(host));
  const rows = await db.query<{ verified: boolean }[]>(
    `SELECT verified_at IS NOT NULL AS verified FROM links.domains
     WHERE host = $1 AND owner_id = $2 AND deleted_at IS NULL`,
    [host, ownerId],
  );
  if (!rows[0]) throw new BadRequestException(LINK_RULES_MESSAGES.domainUnknown(host));
  if (!rows[0].verified) throw new BadRequestException(LINK_RULES_MESSAGES.domainUnverified(host));
  return host;
}

/**
 * A chosen back-half on a domain: an alias's form (the app's reserved paths are the main
 * origin's only, so they are free there), refused as an alias is; null for none.
 */
export function chosenSlug(raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string' || !isShortCode(raw)) {
    throw new ForbiddenException(ALIAS_MESSAGES.format);
  }
  return raw;
}

/** Whether a domain already holds a link of this back-half, in any letter case. */
export async function slugTaken(
  db: Pick<DataSource, 'query'>,
  host: string,
  slug: string,
): Promise<boolean> {
  const rows: unknown[] = await db.query(
    'SELECT 1 FROM links.links WHERE domain = $1 AND lower(slug) = lower($2)',
    [host, slug],
  );
  return rows.length > 0;
}

/** PostgreSQL's unique_violation: a back-half taken meanwhile. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}
