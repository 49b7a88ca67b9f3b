// The redirect service as its own process: configuration from the environment, links from
// Redis, visits to Kafka. (The embedded host starts it with in-process adapters: see index.ts.)
import { createLogger, runMain } from '@shortener/chassis';
import { connectAdapters } from './adapters';
import { loadRedirectConfig } from './config';
import { startRedirect } from './server';

runMain('redirect', async () => {
  const config = loadRedirectConfig();
  const logger = createLogger('redirect', config.LOG_LEVEL);
  await startRedirect({ config, logger, adapters: connectAdapters(config, logger) });
});
