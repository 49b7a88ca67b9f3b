import { Global, Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { SessionCookieStrategy } from './session-cookie.strategy';
import { OptionalSessionGuard, SignedInGuard } from './session.guards';
import { SessionResolver } from './session-resolver';

/** Who is calling: the session cookie, resolved through the auth service. */
@Global()
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [SessionResolver, SessionCookieStrategy, SignedInGuard, OptionalSessionGuard],
  exports: [SessionResolver, SignedInGuard, OptionalSessionGuard],
})
export class SessionModule {}
