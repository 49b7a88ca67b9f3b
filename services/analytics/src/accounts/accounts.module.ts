import { Module } from '@nestjs/common';
import { LinkOwnersRepository } from '../visits/link-owners.repository';
import { AccountStatsController } from './account-stats.controller';
import { AccountStatsRepository } from './account-stats.repository';

@Module({
  controllers: [AccountStatsController],
  providers: [AccountStatsRepository, LinkOwnersRepository],
})
export class AccountsModule {}
