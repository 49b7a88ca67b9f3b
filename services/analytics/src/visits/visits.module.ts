import { Module } from '@nestjs/common';
import { TombstonePurgeJob } from './tombstone-purge.job';
import { VisitsController } from './visits.controller';
import { VisitsRepository } from './visits.repository';

@Module({
  controllers: [VisitsController],
  providers: [VisitsRepository, TombstonePurgeJob],
  exports: [VisitsRepository],
})
export class VisitsModule {}
