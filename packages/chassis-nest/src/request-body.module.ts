import {
  Inject,
  Module,
  RequestMethod,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { readRequestBody, type BodyKind } from './request-body';
import { SERVICE_LOGGER } from './tokens';

const BODY_OPTIONS = Symbol('BODY_OPTIONS');

export interface RequestBodies {
  kinds: BodyKind[];
  /** In bytes, after decoding. */
  limit: number;
  /** POST routes that may send more, each with its own limit (analytics' visit hand-off). */
  larger?: Array<{ path: string; limit: number }>;
}

/**
 * Reads request bodies on every route of a service. A module of its own, not global, so
 * its middleware runs after the request logger's (refusals carry the request id).
 */
@Module({})
export class RequestBodyModule implements NestModule {
  static forRoot(bodies: RequestBodies): DynamicModule {
    return { module: RequestBodyModule, providers: [{ provide: BODY_OPTIONS, useValue: bodies }] };
  }

  constructor(
    @Inject(BODY_OPTIONS) private readonly bodies: RequestBodies,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const { kinds, limit, larger = [] } = this.bodies;
    const routes = larger.map(({ path }) => ({ path, method: RequestMethod.POST }));
    larger.forEach((route, index) =>
      consumer
        .apply(readRequestBody({ kinds, limit: route.limit, logger: this.logger }))
        .forRoutes(routes[index]!),
    );
    consumer
      .apply(readRequestBody({ kinds, limit, logger: this.logger }))
      .exclude(...routes)
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
