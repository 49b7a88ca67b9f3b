import { ServiceUnavailableException } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { InternalLink, ResolvedRules } from '@shortener/contracts';
import type { ManagedDataSource } from '@shortener/chassis-postgres';
import { brandedKey, type CachedLink } from '@shortener/link-cache';

/** links.links as the links service reads it. */
export interface LinkRow {
  code: string;
  original_url: string;
  created_at: Date;
  expires_at: Date;
  /** A branded link's domain and back-half there; null on the main origin. */
  domain?: string | null;
  slug?: string | null;
  ios_url?: string | null;
  android_url?: string | null;
  geo_urls?: Record<string, string> | null;
  password_hash?: string | null;
  max_visits?: number | null;
}

/** A row as it is written to the link cache: with its version (a bigint: text from pg). */
export interface VersionedRow extends LinkRow {
  version: string | number;
  /** Whether it may redirect: on the main origin, or on a live verified domain of its owner. */
  served?: boolean;
}

/** The columns every read of a link takes (a table named links.links, without an alias). */
export const LINK_COLUMNS = `code, original_url, created_at, expires_at, domain, slug,
  ios_url, android_url, geo_urls, password_hash, max_visits`;

/** LINK_COLUMNS and the version, and whether the link may redirect (VersionedRow.served). */
export const VERSIONED_COLUMNS = `${LINK_COLUMNS}, version,
  (domain IS NULL OR EXISTS (
    SELECT 1 FROM links.domains d
    WHERE d.host = links.links.domain AND d.owner_id = links.links.owner_id
      AND d.deleted_at IS NULL AND d.verified_at IS NOT NULL
  )) AS served`;

/** The key of a link's cache entry: its code, or `{host}/{slug}` on a branded domain. */
export function cacheKeyOf(row: Pick<LinkRow, 'code' | 'domain' | 'slug'>): string {
  return row.domain && row.slug ? brandedKey(row.domain, row.slug) : row.code;
}

/** The rules of a row as the redirect reads them; undefined when none is set. */
export function rulesOf(row: LinkRow): ResolvedRules | undefined {
  const rules: ResolvedRules = {
    ...(row.ios_url ? { ios: row.ios_url } : {}),
    ...(row.android_url ? { android: row.android_url } : {}),
    ...(row.geo_urls ? { geo: row.geo_urls } : {}),
    ...(row.password_hash ? { passwordHash: row.password_hash } : {}),
    ...(row.max_visits ? { maxVisits: row.max_visits } : {}),
  };
  return Object.keys(rules).length > 0 ? rules : undefined;
}

/** The cache entry of a row read with its version. */
export function cachedLink(row: VersionedRow): CachedLink & { version: number } {
  const rules = rulesOf(row);
  return {
    url: row.original_url,
    expiresAt: row.expires_at.getTime(),
    version: Number(row.version),
    ...(row.domain ? { urlId: row.code } : {}),
    ...(rules ? { rules } : {}),
  };
}

/** A link as the gateway reads it: a plain main-origin one exactly as before rules existed. */
export function toInternal(row: LinkRow): InternalLink {
  return {
    urlID: row.code,
    originalUrl: row.original_url,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.getTime(),
    ...(row.domain && row.slug ? { domain: row.domain, slug: row.slug } : {}),
    ...(row.ios_url ? { ios: row.ios_url } : {}),
    ...(row.android_url ? { android: row.android_url } : {}),
    ...(row.geo_urls ? { geo: row.geo_urls } : {}),
    ...(row.password_hash ? { hasPassword: true as const } : {}),
    ...(row.max_visits ? { maxVisits: row.max_visits } : {}),
  };
}

/** The database to query, or a 503 while it is away. */
export function connected(database: ManagedDataSource): DataSource {
  if (!database.isConnected) throw new ServiceUnavailableException('Database unavailable');
  return database.dataSource;
}
