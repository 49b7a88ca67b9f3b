import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@shortener/chassis-postgres';
import { AccountsModule } from './accounts/accounts.module';
import type { AnalyticsAdapters } from './adapters';
import type { AnalyticsConfig } from './config';
import { IngestModule } from './ingest/ingest.module';
import { analyticsMigrations } from './migrations';
import { StatsModule } from './stats/stats.module';
import { VisitsModule } from './visits/visits.module';

@Module({})
export class AppModule {
  static forRoot(config: AnalyticsConfig, adapters: AnalyticsAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // PostgreSQL holds the visits the API reads.
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          schema: 'analytics',
          entities: [],
          migrations: analyticsMigrations,
          applicationName: 'analytics',
          migrate: config.DB_MIGRATE,
        }),
        VisitsModule,
        StatsModule,
        AccountsModule,
        IngestModule.forRoot(adapters.visits.value, adapters.notifier.value),
      ],
    };
  }
}
