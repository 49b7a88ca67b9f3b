import { Module, type DynamicModule } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { redisReadiness, type Redis } from '@shortener/chassis/redis';
import { OpsController, READINESS_CHECKS, REDIS, RedisModule } from '@shortener/chassis/nest';
import type { GatewayConfig } from './config';

/** The gateway is ready when Redis and the services behind it are alive. */
function serviceAlive(name: string, baseUrl: string): ReadinessCheck {
  return {
    name,
    check: async () => {
      const response = await fetch(new URL('/healthz', baseUrl), {
        signal: AbortSignal.timeout(1500),
      });
      if (!response.ok) throw new Error(`answered ${response.status}`);
    },
  };
}

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [RedisModule.forRoot(config.REDIS_URL)],
      controllers: [OpsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [REDIS],
          useFactory: (redis: Redis): ReadinessCheck[] => [
            redisReadiness(redis),
            serviceAlive('auth', config.AUTH_URL),
            serviceAlive('links', config.LINKS_URL),
            serviceAlive('analytics', config.ANALYTICS_URL),
            serviceAlive('redirect', config.REDIRECT_URL),
          ],
        },
      ],
    };
  }
}
