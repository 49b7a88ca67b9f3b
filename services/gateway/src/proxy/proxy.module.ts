import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import type { Type } from '@nestjs/common';
import { signInApi, type SignInRoute } from '@shortener/contracts';
import {
  AuthProxyMiddleware,
  ForgetSessionMiddleware,
  SignInRateLimitMiddleware,
} from './proxy.middlewares';

/** What runs before the auth service is asked, by what the entry says of the route. */
function middlewaresOf(route: SignInRoute): Type[] {
  return [
    ...(route.signInAttempt ? [SignInRateLimitMiddleware] : []),
    // Signing in ends the session the browser had, signing out its own: either way the
    // gateway forgets the cached session.
    ...(route.endsSession ? [ForgetSessionMiddleware] : []),
    AuthProxyMiddleware,
  ];
}

/**
 * The paths the gateway passes through to a service as they are: each sign-in route of
 * `signInApi`. Sign-in is proxied, not re-implemented here: the auth service owns the whole
 * OAuth flow and its cookies, and the browser still sees one origin. (/r/ is not here: the
 * fast path in front of Express takes every request for it, see redirect-fast-path.ts.)
 */
@Module({})
export class ProxyModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    for (const route of Object.values(signInApi) as SignInRoute[]) {
      consumer
        .apply(...middlewaresOf(route))
        .forRoutes({ path: route.path, method: RequestMethod[route.method] });
    }
  }
}
