import cookieParser from 'cookie-parser';
import { nestService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config';

/**
 * The auth service: sign-in (Google, or the embedded mode's local one), users and sessions.
 * It talks to nothing but PostgreSQL, so it has no adapters.
 */
export const service = nestService({
  name: 'auth',
  loadConfig: loadAuthConfig,
  module: (config) => AppModule.forRoot(config),
  // JSON for the internal API, the form of the local sign-in (/auth/local).
  bodies: { kinds: ['json', 'form'] },
  configure: (app) => {
    app.use(cookieParser());
  },
});
