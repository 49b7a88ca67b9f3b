import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { FrontendMiddleware } from './frontend.middleware';

@Module({})
export class FrontendModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(FrontendMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.GET });
  }
}
