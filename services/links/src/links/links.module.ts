import { Module, type DynamicModule } from '@nestjs/common';
import { LINK_CACHE, type LinkCache } from './link-cache.provider';
import { BrandedLinksService } from './branded-links.service';
import { LinkEditsService } from './link-edits.service';
import { LinksController } from './links.controller';
import { LinksService } from './links.service';
import { OwnHostsService } from './own-hosts.service';
import { OwnerNoticesService } from './owner-notices.service';
import { OwnedLinksService } from './owned-links.service';
import { RemovalsService } from './removals.service';

@Module({})
export class LinksModule {
  static forRoot(cache: LinkCache): DynamicModule {
    return {
      module: LinksModule,
      // The domains' module stops and resumes a domain's links through it.
      global: true,
      controllers: [LinksController],
      providers: [
        { provide: LINK_CACHE, useValue: cache },
        LinksService,
        OwnedLinksService,
        OwnHostsService,
        RemovalsService,
        OwnerNoticesService,
        LinkEditsService,
        BrandedLinksService,
      ],
      exports: [BrandedLinksService],
    };
  }
}
