import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ApiBodyMiddleware } from './api-body.middleware';
import { ApiExceptionFilter } from './api-exception.filter';
import { ApiRateLimitMiddleware } from './api-rate-limit.middleware';
import { requireRequestedWith } from './requested-with.middleware';

/**
 * What every /api call goes through: the CSRF header, the rate limit, then (only then) its
 * body within a limit, and one error shape.
 */
@Module({
  providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
})
export class EdgeModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(requireRequestedWith, ApiRateLimitMiddleware, ApiBodyMiddleware)
      .forRoutes({ path: 'api{/*path}', method: RequestMethod.ALL });
  }
}
