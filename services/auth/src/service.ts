import cookieParser from 'cookie-parser';
import type { Logger } from '@shortener/chassis';
import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import type { AuthConfig } from './config';

export interface AuthOptions {
  config: AuthConfig;
  logger?: Logger;
  /** Hosted in another process (the embedded mode), which handles signals and exit. */
  hosted?: boolean;
}

/**
 * Starts the auth service: sign-in (Google, or the embedded mode's local one), users and
 * sessions. It talks to nothing but PostgreSQL, so it takes no adapters.
 */
export function startAuth({
  config,
  logger,
  hosted = false,
}: AuthOptions): Promise<RunningService> {
  return startNestService({
    service: 'auth',
    config,
    logger,
    module: AppModule.forRoot(config),
    // JSON for the internal API, the form of the local sign-in (/auth/local).
    bodies: { kinds: ['json', 'form'] },
    configure: (app) => {
      app.use(cookieParser());
    },
    hosted,
  });
}
