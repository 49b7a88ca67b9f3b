// The analytics service as its own process: configuration from the environment, visits from
// Kafka. (The embedded host starts it with an in-process bus instead: see index.ts.)
import { createLogger, runMain } from '@shortener/chassis';
import { connectAdapters } from './adapters';
import { loadAnalyticsConfig } from './config';
import { startAnalytics } from './service';

runMain('analytics', async () => {
  const config = loadAnalyticsConfig();
  const logger = createLogger('analytics', config.LOG_LEVEL);
  await startAnalytics({ config, logger, adapters: connectAdapters(config, logger) });
});
