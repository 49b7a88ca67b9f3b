import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { DatabaseModule, ManagedDataSource } from '@shortener/chassis-postgres';
import { redisReadiness, type Redis } from '@shortener/chassis-redis';
import { OpsController, READINESS_CHECKS, REDIS, RedisModule } from '@shortener/chassis-nest';
import type { LinksConfig } from './config';
import { LinksModule } from './links/links.module';
import { linksMigrations } from './migrations';

function readiness(withRedis: boolean): Provider {
  return {
    provide: READINESS_CHECKS,
    inject: withRedis ? [ManagedDataSource, REDIS] : [ManagedDataSource],
    useFactory: (db: ManagedDataSource, redis?: Redis): ReadinessCheck[] => [
      { name: 'postgres', check: () => db.check() },
      ...(redis ? [redisReadiness(redis)] : []),
    ],
  };
}

@Module({})
export class AppModule {
  static forRoot(config: LinksConfig): DynamicModule {
    const withRedis = !config.REDIS_URL.startsWith('memory:');
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
        ...(withRedis ? [RedisModule.forRoot(config.REDIS_URL)] : []),
        LinksModule.forRoot(withRedis ? 'redis' : 'memory'),
      ],
      controllers: [OpsController],
      providers: [readiness(withRedis)],
    };
  }
}
