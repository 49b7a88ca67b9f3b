import { randomBytes } from 'node:crypto';
import { testServers } from './env';
import { freePort } from './ports';
import { startService, type ServiceName, type ServiceProcess } from './service-process';

export interface TestStack {
  secret: string;
  /** The first instance of each service started. */
  get(name: ServiceName): ServiceProcess;
  /** Every instance of a service (several redirect instances, for instance). */
  all(name: ServiceName): ServiceProcess[];
  /** Starts one more instance of a service, wired like the others. */
  add(name: ServiceName, env?: NodeJS.ProcessEnv): Promise<ServiceProcess>;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export interface TestStackOptions {
  /** Which services, in start order; the gateway last when present. */
  services: ServiceName[];
  /** Extra environment for every service, or per service. */
  env?: NodeJS.ProcessEnv;
  serviceEnv?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
}

/**
 * Starts services as the stack runner does, each its own process on a free port, all on the
 * real test servers, sharing one internal secret, each knowing where the others are.
 */
export async function startTestStack(options: TestStackOptions): Promise<TestStack> {
  const secret = randomBytes(24).toString('base64url');
  const ports = new Map<ServiceName, number>();
  for (const name of options.services) ports.set(name, await freePort());
  const urlOf = (name: ServiceName, fallback: number): string =>
    `http://127.0.0.1:${ports.get(name) ?? fallback}`;
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: testServers.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
    INTERNAL_API_SECRET: secret,
    AUTH_URL: urlOf('auth', 1),
    LINKS_URL: urlOf('links', 1),
    ANALYTICS_URL: urlOf('analytics', 1),
    REDIRECT_URL: urlOf('redirect', 1),
    TRUSTED_PROXIES: '127.0.0.1,::1',
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const started = new Map<ServiceName, ServiceProcess[]>();
  const add = async (name: ServiceName, extra: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> => {
    const instances = started.get(name) ?? [];
    const port =
      instances.length === 0 ? (ports.get(name) ?? (await freePort())) : await freePort();
    const service = await startService(name, port, {
      ...env,
      ...options.serviceEnv?.[name],
      ...extra,
    });
    started.set(name, [...instances, service]);
    return service;
  };
  const stack: TestStack = {
    secret,
    env,
    get: (name) => {
      const service = started.get(name)?.[0];
      if (!service) throw new Error(`${name} is not part of this test stack`);
      return service;
    },
    all: (name) => started.get(name) ?? [],
    add,
    stop: async () => {
      await Promise.all([...started.values()].flat().map((service) => service.stop('SIGTERM')));
    },
  };
  try {
    for (const name of options.services) await add(name);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}
