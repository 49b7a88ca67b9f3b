import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import {
  AuthProxyMiddleware,
  ForgetSessionMiddleware,
  SignInRateLimitMiddleware,
} from './proxy.middlewares';

/**
 * The paths the gateway passes through to a service as they are. Sign-in is proxied, not
 * re-implemented here: the auth service owns the whole OAuth flow and its cookies, and the
 * browser still sees one origin. (/r/ is not here: the fast path in front of Express takes
 * every request for it, see redirect-fast-path.ts.)
 */
@Module({})
export class ProxyModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(SignInRateLimitMiddleware, AuthProxyMiddleware)
      .forRoutes({ path: 'login', method: RequestMethod.GET });
    // Signing in ends the session the browser had, signing out its own: either way the
    // gateway forgets the cached session. GET /logout only answers a page with the button.
    consumer
      .apply(SignInRateLimitMiddleware, ForgetSessionMiddleware, AuthProxyMiddleware)
      .forRoutes(
        // The Google callback.
        { path: 'auth/*path', method: RequestMethod.GET },
        // The embedded mode's local sign-in form posts here.
        { path: 'auth/local', method: RequestMethod.POST },
      );
    consumer
      .apply(ForgetSessionMiddleware, AuthProxyMiddleware)
      .forRoutes({ path: 'logout', method: RequestMethod.POST });
    consumer.apply(AuthProxyMiddleware).forRoutes({ path: 'logout', method: RequestMethod.GET });
  }
}
