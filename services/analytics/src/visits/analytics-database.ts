import { ServiceUnavailableException } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { ManagedDataSource } from '@shortener/chassis-postgres';

/** The analytics schema's data source, or 503 while PostgreSQL is not connected yet. */
export function connected(database: ManagedDataSource): DataSource {
  if (!database.isConnected) throw new ServiceUnavailableException('Database unavailable');
  return database.dataSource;
}
