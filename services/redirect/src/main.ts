import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createLogger,
  createMetrics,
  exitOnStartupError,
  handleOpsRequest,
  onShutdown,
  retryForever,
  type ReadinessCheck,
} from '@shortener/chassis';
import { closeRedis, createRedis, redisReadiness } from '@shortener/chassis/redis';
import { createKafka } from '@shortener/chassis/kafka';
import { loadRedirectConfig } from './config';

async function main(): Promise<void> {
  const config = loadRedirectConfig();
  const logger = createLogger('redirect', config.LOG_LEVEL);
  const metrics = createMetrics('redirect');
  const redis = createRedis(config.REDIS_URL, logger);
  const producer = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'redirect',
    logger,
  }).producer({ idempotent: true, allowAutoTopicCreation: false });
  let producerConnected = false;
  producer.on(producer.events.CONNECT, () => (producerConnected = true));
  producer.on(producer.events.DISCONNECT, () => (producerConnected = false));
  void retryForever(
    () => producer.connect(),
    (error, retryInMs) =>
      logger.warn({ err: (error as Error).message, retryInMs }, 'Kafka not available yet'),
  );

  const checks: ReadinessCheck[] = [
    redisReadiness(redis),
    {
      name: 'kafka',
      check: () =>
        producerConnected ? Promise.resolve() : Promise.reject(new Error('producer not connected')),
    },
  ];
  let shuttingDown = false;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (
      handleOpsRequest(req, res, {
        registry: metrics.registry,
        checks,
        isShuttingDown: () => shuttingDown,
      })
    ) {
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  logger.info({ port: config.PORT }, `redirect listening on port ${config.PORT}`);

  onShutdown({
    logger,
    steps: [
      {
        name: 'stop taking requests',
        run: async () => {
          shuttingDown = true;
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      },
      { name: 'disconnect Kafka', run: () => producer.disconnect() },
      { name: 'disconnect Redis', run: () => closeRedis(redis) },
    ],
  });
}

main().catch((error: unknown) =>
  exitOnStartupError('redirect', error, Number(process.env['PORT'] ?? 7004)),
);
