import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { DocsMiddleware } from './docs.middleware';

@Module({})
export class DocsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(DocsMiddleware)
      .forRoutes({ path: 'api/docs{/*path}', method: RequestMethod.GET });
  }
}
