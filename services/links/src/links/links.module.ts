import { Module, type DynamicModule } from '@nestjs/common';
import { memoryLinkCacheProvider, redisLinkCacheProvider } from './link-cache.provider';
import { LinksController } from './links.controller';
import { LinksService } from './links.service';
import { OwnHostsService } from './own-hosts.service';
import { RemovalsService } from './removals.service';

@Module({})
export class LinksModule {
  static forRoot(cache: 'redis' | 'memory'): DynamicModule {
    return {
      module: LinksModule,
      controllers: [LinksController],
      providers: [
        cache === 'redis' ? redisLinkCacheProvider : memoryLinkCacheProvider,
        LinksService,
        OwnHostsService,
        RemovalsService,
      ],
    };
  }
}
