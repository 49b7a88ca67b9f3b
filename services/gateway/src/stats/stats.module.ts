import { Module, type DynamicModule } from '@nestjs/common';
import type { ServiceMetrics } from '@shortener/chassis';
import {
  LIFECYCLE,
  SERVICE_CONFIG,
  SERVICE_METRICS,
  type Lifecycle,
} from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { LiveStreams } from './live-streams';
import type { LiveVisitFeed } from './live-visits';
import { StatsController } from './stats.controller';
import { StatsService } from './stats.service';

@Module({})
export class StatsModule {
  /**
   * With the feed of stored visits the process chose (Redis pub/sub, or in-process). Global
   * for its live streams: the links module ends those of a link it deletes.
   */
  static forRoot(feed: LiveVisitFeed): DynamicModule {
    return {
      module: StatsModule,
      global: true,
      controllers: [StatsController],
      providers: [
        StatsService,
        {
          provide: LiveStreams,
          inject: [SERVICE_CONFIG, LIFECYCLE, SERVICE_METRICS],
          useFactory: (config: GatewayConfig, lifecycle: Lifecycle, metrics: ServiceMetrics) =>
            new LiveStreams({
              feed,
              perUser: config.LIVE_STREAMS_PER_USER,
              perInstance: config.LIVE_STREAMS_PER_INSTANCE,
              heartbeatMs: config.LIVE_HEARTBEAT_MS,
              stopping: lifecycle.stopping,
              metrics,
            }),
        },
      ],
      exports: [LiveStreams],
    };
  }
}
