import { Module, type DynamicModule } from '@nestjs/common';
import { ManagedDataSource } from '@shortener/chassis/database';
import { DatabaseModule, OpsController, READINESS_CHECKS } from '@shortener/chassis/nest';
import type { ReadinessCheck } from '@shortener/chassis';
import type { AuthConfig } from './config';

@Module({})
export class AppModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot({
          url: config.DATABASE_URL,
          schema: 'auth',
          entities: [],
          migrations: [],
          applicationName: 'auth',
          migrate: config.DB_MIGRATE,
        }),
      ],
      controllers: [OpsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [ManagedDataSource],
          useFactory: (db: ManagedDataSource): ReadinessCheck[] => [
            { name: 'postgres', check: () => db.check() },
          ],
        },
      ],
    };
  }
}
