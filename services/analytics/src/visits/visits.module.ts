import { Module } from '@nestjs/common';
import { TombstonePurgeJob } from './tombstone-purge.job';
import { VisitsController } from './visits.controller';
import { PartitionsRepository } from './partitions.repository';
import { PurgesRepository } from './purges.repository';
import { VisitsRepository } from './visits.repository';

@Module({
  controllers: [VisitsController],
  providers: [VisitsRepository, PurgesRepository, PartitionsRepository, TombstonePurgeJob],
})
export class VisitsModule {}
