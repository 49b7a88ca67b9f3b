import { Module } from '@nestjs/common';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { AuthConfig } from '../config';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../users/users.module';
import { GoogleSignIn } from './google-sign-in';
import { GOOGLE_SIGN_IN, SignInController } from './sign-in.controller';

@Module({
  imports: [UsersModule, SessionsModule],
  controllers: [SignInController],
  providers: [
    {
      provide: GOOGLE_SIGN_IN,
      inject: [SERVICE_CONFIG],
      // Without a client id there is no strategy: /login then explains what to set.
      useFactory: (config: AuthConfig): GoogleSignIn | null =>
        config.google ? new GoogleSignIn(config.google, config.secureCookies) : null,
    },
  ],
})
export class SignInModule {}
