import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { closeRedis, createRedis } from '@shortener/chassis-redis';
import { SERVICE_LOGGER } from './tokens';

export const REDIS = Symbol('REDIS');

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.redis);
  }
}

/** Provides one shared ioredis client under the REDIS token. */
@Module({})
export class RedisModule {
  static forRoot(url: string): DynamicModule {
    return {
      module: RedisModule,
      global: true,
      providers: [
        {
          provide: REDIS,
          inject: [SERVICE_LOGGER],
          useFactory: (logger: Logger) => createRedis(url, logger),
        },
        RedisLifecycle,
      ],
      exports: [REDIS],
    };
  }
}
