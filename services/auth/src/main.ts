import cookieParser from 'cookie-parser';
import { startNestService, type RunningService } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config';

/** Starts the auth service; `hosted` when another process (the embedded mode) hosts it. */
export function startAuth(hosted = false): Promise<RunningService> {
  return startNestService({
    service: 'auth',
    loadConfig: () => loadAuthConfig(),
    module: (config) => AppModule.forRoot(config),
    // JSON for the internal API, the form of the local sign-in (/auth/local).
    bodies: { kinds: ['json', 'form'] },
    configure: (app) => {
      app.use(cookieParser());
    },
    hosted,
  });
}

if (require.main === module) void startAuth();
