import { Module } from '@nestjs/common';
import { linkCacheProvider } from './link-cache.provider';
import { LinksController } from './links.controller';
import { LinksService } from './links.service';
import { RemovalsService } from './removals.service';

@Module({
  controllers: [LinksController],
  providers: [linkCacheProvider, LinksService, RemovalsService],
})
export class LinksModule {}
