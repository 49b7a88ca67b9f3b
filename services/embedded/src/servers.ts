// Each client is imported by its check, run only when its variable is set: the embedded
// mode on its own never loads them.

/** A real server the operator pointed us at does not answer: what to fix, in one line. */
export class ServerUnreachable extends Error {}

function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 'default port'}`;
  } catch {
    return 'an address that is not a URL';
  }
}

async function postgresAnswers(url: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } finally {
    redis.disconnect();
  }
}

async function kafkaAnswers(brokers: string[]): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    clientId: 'embedded-check',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    retry: { retries: 1 },
  }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * DATABASE_URL, REDIS_URL and KAFKA_BROKERS switch the embedded mode to real servers; a
 * half-configured set-up (one of them set but not answering) stops here with a message
 * naming the variable, before anything is started or written.
 */
export async function checkServers(env: NodeJS.ProcessEnv): Promise<void> {
  const checks: Array<{
    variable: string;
    value: string;
    fallback: string;
    check: () => Promise<void>;
  }> = [];
  const database = env['DATABASE_URL'];
  const redis = env['REDIS_URL'];
  const kafka = env['KAFKA_BROKERS'];
  if (database)
    checks.push({
      variable: 'DATABASE_URL',
      value: where(database),
      fallback: 'the embedded database',
      check: () => postgresAnswers(database),
    });
  if (redis)
    checks.push({
      variable: 'REDIS_URL',
      value: where(redis),
      fallback: 'the in-process cache',
      check: () => redisAnswers(redis),
    });
  if (kafka)
    checks.push({
      variable: 'KAFKA_BROKERS',
      value: kafka,
      fallback: 'the in-process event bus',
      check: () => kafkaAnswers(kafka.split(',')),
    });
  const problems = await Promise.all(
    checks.map(async ({ variable, value, fallback, check }) => {
      try {
        await check();
        return null;
      } catch (error) {
        return `${variable} is set but ${value} does not answer (${(error as Error).message}): start that server, or unset ${variable} to use ${fallback}`;
      }
    }),
  );
  const failed = problems.filter((problem): problem is string => problem !== null);
  if (failed.length > 0) throw new ServerUnreachable(failed.join('\n          '));
}
