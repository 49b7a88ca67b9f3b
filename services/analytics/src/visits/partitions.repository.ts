import { Inject, Injectable } from '@nestjs/common';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { connected } from './analytics-database';
import { maintainPartitions, type PartitionRound, type Transact } from './visit-partitions';

/** The visits' monthly partitions, kept by the purge round (visit-partitions.ts). */
@Injectable()
export class PartitionsRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /** Makes the months ahead; with a retention, drops the months past it. */
  maintain(retentionMonths: number | undefined, now = new Date()): Promise<PartitionRound> {
    const db = connected(this.database);
    const transact: Transact = (work) => db.transaction((manager) => work(manager));
    return maintainPartitions(db, transact, retentionMonths, now);
  }
}
