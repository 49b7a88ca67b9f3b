import { Module, type DynamicModule } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { DatabaseModule, ManagedDataSource } from '@shortener/chassis-postgres';
import { OpsController, READINESS_CHECKS } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from './config';
import { IngestModule } from './ingest/ingest.module';
import { VISIT_SOURCE, type VisitSource } from './ingest/visit-source';
import { analyticsMigrations } from './migrations';
import { VisitsModule } from './visits/visits.module';

@Module({})
export class AppModule {
  static forRoot(config: AnalyticsConfig): DynamicModule {
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
        IngestModule.forRoot(config),
      ],
      controllers: [OpsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [ManagedDataSource, VISIT_SOURCE],
          useFactory: (db: ManagedDataSource, source: VisitSource): ReadinessCheck[] => [
            { name: 'postgres', check: () => db.check() },
            { name: source.name, check: () => source.check() },
          ],
        },
      ],
    };
  }
}
