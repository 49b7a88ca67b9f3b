import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { API_DOCS_PATH } from '@shortener/contracts';
import { DocsMiddleware } from './docs.middleware';

@Module({})
export class DocsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(DocsMiddleware)
      .forRoutes({ path: `${API_DOCS_PATH}{/*path}`, method: RequestMethod.GET });
  }
}
