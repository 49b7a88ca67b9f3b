import { Module, type DynamicModule } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis/database';
import { DatabaseModule, OpsController, READINESS_CHECKS } from '@shortener/chassis/nest';
import type { AnalyticsConfig } from './config';
import { KafkaConnection } from './kafka.provider';

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
          migrations: [],
          applicationName: 'analytics',
          migrate: config.DB_MIGRATE,
        }),
      ],
      controllers: [OpsController],
      providers: [
        KafkaConnection,
        {
          provide: READINESS_CHECKS,
          inject: [ManagedDataSource, KafkaConnection],
          useFactory: (db: ManagedDataSource, kafka: KafkaConnection): ReadinessCheck[] => [
            { name: 'postgres', check: () => db.check() },
            { name: 'kafka', check: () => kafka.check() },
          ],
        },
      ],
    };
  }
}
