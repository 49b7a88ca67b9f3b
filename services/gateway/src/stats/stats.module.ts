import { Module, type DynamicModule } from '@nestjs/common';
import { LIVE_VISITS, StatsController } from './stats.controller';
import type { LiveVisitFeed } from './live-visits';
import { StatsService } from './stats.service';

@Module({})
export class StatsModule {
  /** With the feed of stored visits the process chose (Redis pub/sub, or in-process). */
  static forRoot(feed: LiveVisitFeed): DynamicModule {
    return {
      module: StatsModule,
      controllers: [StatsController],
      providers: [StatsService, { provide: LIVE_VISITS, useValue: feed }],
    };
  }
}
