// The auth service as its own process, configured from the environment.
import { createLogger, runMain } from '@shortener/chassis';
import { loadAuthConfig } from './config';
import { startAuth } from './service';

runMain('auth', async () => {
  const config = loadAuthConfig();
  await startAuth({ config, logger: createLogger('auth', config.LOG_LEVEL) });
});
