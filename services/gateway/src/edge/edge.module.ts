import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ApiExceptionFilter } from './api-exception.filter';
import { ApiRateLimitMiddleware } from './api-rate-limit.middleware';
import { requireRequestedWith } from './requested-with.middleware';

/** What every /api call goes through: the CSRF header, the rate limit, one error shape. */
@Module({
  providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
})
export class EdgeModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(requireRequestedWith, ApiRateLimitMiddleware)
      .forRoutes({ path: 'api{/*path}', method: RequestMethod.ALL });
  }
}
