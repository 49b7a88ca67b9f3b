/**
 * Where the real servers are for tests: set by the test runner (scripts/test.mjs) after it
 * brings them up, with local defaults for running one package's tests by hand.
 */
export const testServers = {
  databaseUrl: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/shortener_test',
  redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379/1',
  // Unset: the local broker infra runs, on KAFKA_PORT (default 9092).
  kafkaBrokers: (
    process.env['KAFKA_BROKERS'] ?? `127.0.0.1:${process.env['KAFKA_PORT'] || '9092'}`
  ).split(','),
};

export function hostPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

/** Replaces host and port in a server URL, keeping credentials, path and query. */
export function viaPort(url: string, port: number, host = '127.0.0.1'): string {
  const parsed = new URL(url);
  parsed.hostname = host;
  parsed.port = String(port);
  return parsed.toString();
}
