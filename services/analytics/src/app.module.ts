import { Module, type DynamicModule } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { DatabaseModule, ManagedDataSource } from '@shortener/chassis-postgres';
import { OpsController, READINESS_CHECKS } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from './config';
import type { AnalyticsAdapters } from './service';
import { IngestModule } from './ingest/ingest.module';
import { analyticsMigrations } from './migrations';
import { VisitsModule } from './visits/visits.module';

@Module({})
export class AppModule {
  static forRoot(config: AnalyticsConfig, adapters: AnalyticsAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          schema: 'analytics',
          entities: [],
          migrations: analyticsMigrations,
          applicationName: 'analytics',
          migrate: config.DB_MIGRATE,
        }),
        VisitsModule,
        IngestModule.forRoot(adapters.visits.value),
      ],
      controllers: [OpsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [ManagedDataSource],
          useFactory: (db: ManagedDataSource): ReadinessCheck[] => [
            { name: 'postgres', check: () => db.check() },
            ...adapters.visits.checks,
          ],
        },
      ],
    };
  }
}
