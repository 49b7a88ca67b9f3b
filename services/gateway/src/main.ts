// The gateway as its own process: configuration from the environment, rate limits in Redis.
// (The embedded host starts it with in-process counters instead: see index.ts.)
import { createLogger, runMain } from '@shortener/chassis';
import { connectAdapters } from './adapters';
import { loadGatewayConfig } from './config';
import { startGateway } from './service';

runMain('gateway', async () => {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  await startGateway({ config, logger, adapters: connectAdapters(config, logger) });
});
