// The links service as its own process: configuration from the environment, the link cache
// in Redis. (The embedded host starts it with an in-process cache instead: see index.ts.)
import { createLogger, runMain } from '@shortener/chassis';
import { connectAdapters } from './adapters';
import { loadLinksConfig } from './config';
import { startLinks } from './service';

runMain('links', async () => {
  const config = loadLinksConfig();
  const logger = createLogger('links', config.LOG_LEVEL);
  await startLinks({ config, logger, adapters: connectAdapters(config, logger) });
});
