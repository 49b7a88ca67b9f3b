import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@shortener/chassis-postgres';
import type { LinksAdapters } from './adapters';
import type { LinksConfig } from './config';
import { DomainsModule } from './domains/domains.module';
import { LinksModule } from './links/links.module';
import { linksMigrations } from './migrations';

@Module({})
export class AppModule {
  static forRoot(config: LinksConfig, adapters: LinksAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // PostgreSQL holds the links: without it nothing can be served. The link cache is
        // only a cache: writes go on without it, and the redirect asks this service.
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          schema: 'links',
          entities: [],
          migrations: linksMigrations,
          applicationName: 'links',
          migrate: config.DB_MIGRATE,
        }),
        LinksModule.forRoot(adapters.linkCache.value),
        DomainsModule,
      ],
    };
  }
}
