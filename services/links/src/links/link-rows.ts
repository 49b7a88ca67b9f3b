import { ServiceUnavailableException } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { InternalLink } from '@shortener/contracts';
import type { ManagedDataSource } from '@shortener/chassis-postgres';
import type { CachedLink } from '@shortener/link-cache';

/** links.links as the links service reads it. */
export interface LinkRow {
  code: string;
  original_url: string;
  created_at: Date;
  expires_at: Date;
}

/** A row as it is written to the link cache: with its version (a bigint: text from pg). */
export interface VersionedRow extends LinkRow {
  version: string | number;
}

/** The cache entry of a row read with its version. */
export function cachedLink(row: VersionedRow): CachedLink & { version: number } {
  return {
    url: row.original_url,
    expiresAt: row.expires_at.getTime(),
    version: Number(row.version),
  };
}

export function toInternal(row: LinkRow): InternalLink {
  return {
    urlID: row.code,
    originalUrl: row.original_url,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.getTime(),
  };
}

/** The database to query, or a 503 while it is away. */
export function connected(database: ManagedDataSource): DataSource {
  if (!database.isConnected) throw new ServiceUnavailableException('Database unavailable');
  return database.dataSource;
}
