import { Module, type DynamicModule } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { ManagedDataSource } from '@shortener/chassis/database';
import { redisReadiness, type Redis } from '@shortener/chassis/redis';
import {
  DatabaseModule,
  OpsController,
  READINESS_CHECKS,
  REDIS,
  RedisModule,
} from '@shortener/chassis/nest';
import type { LinksConfig } from './config';
import { LinksModule } from './links/links.module';
import { linksMigrations } from './migrations';

@Module({})
export class AppModule {
  static forRoot(config: LinksConfig): DynamicModule {
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
        RedisModule.forRoot(config.REDIS_URL),
        LinksModule,
      ],
      controllers: [OpsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [ManagedDataSource, REDIS],
          useFactory: (db: ManagedDataSource, redis: Redis): ReadinessCheck[] => [
            { name: 'postgres', check: () => db.check() },
            redisReadiness(redis),
          ],
        },
      ],
    };
  }
}
