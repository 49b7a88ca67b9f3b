import { Module, type DynamicModule } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { DatabaseModule, ManagedDataSource } from '@shortener/chassis-postgres';
import { OpsController, READINESS_CHECKS } from '@shortener/chassis-nest';
import type { LinksConfig } from './config';
import { LinksModule } from './links/links.module';
import { linksMigrations } from './migrations';
import type { LinksAdapters } from './service';

@Module({})
export class AppModule {
  static forRoot(config: LinksConfig, adapters: LinksAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          schema: 'links',
          entities: [],
          migrations: linksMigrations,
          applicationName: 'links',
          migrate: config.DB_MIGRATE,
        }),
        LinksModule.forRoot(adapters.linkCache.value),
      ],
      controllers: [OpsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [ManagedDataSource],
          useFactory: (db: ManagedDataSource): ReadinessCheck[] => [
            { name: 'postgres', check: () => db.check() },
            ...adapters.linkCache.checks,
          ],
        },
      ],
    };
  }
}
