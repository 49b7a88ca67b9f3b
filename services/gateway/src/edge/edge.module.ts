import {
  Inject,
  Module,
  RequestMethod,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { APP_FILTER } from '@nestjs/core';
import { ApiBodyMiddleware } from './api-body.middleware';
import { ApiExceptionFilter } from './api-exception.filter';
import { ApiRateLimitMiddleware } from './api-rate-limit.middleware';
import { requireRequestedWith } from './requested-with.middleware';

/**
 * What every /api call goes through: the CSRF header (for the live stream, where the request
 * comes from), the rate limit, then (only then) its
 * body within a limit, and one error shape.
 */
@Module({
  providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
})
export class EdgeModule implements NestModule {
  constructor(@Inject(SERVICE_CONFIG) private readonly config: GatewayConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(
        requireRequestedWith(this.config.PUBLIC_ORIGIN),
        ApiRateLimitMiddleware,
        ApiBodyMiddleware,
      )
      .forRoutes({ path: 'api{/*path}', method: RequestMethod.ALL });
  }
}
