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
  /** Everything every instance printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface TestStackOptions {
  /** Which services; the gateway, when present, starts after the others. */
  services: ServiceName[];
  /** Ports chosen beforehand (say, the gateway's, to build PUBLIC_ORIGIN from). */
  ports?: Partial<Record<ServiceName, number>>;
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
  for (const name of options.services) ports.set(name, options.ports?.[name] ?? (await freePort()));
  const urlOf = (name: ServiceName): string => `http://127.0.0.1:${ports.get(name) ?? 1}`;
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: testServers.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
    INTERNAL_API_SECRET: secret,
    AUTH_URL: urlOf('auth'),
    LINKS_URL: urlOf('links'),
    ANALYTICS_URL: urlOf('analytics'),
    REDIRECT_URL: urlOf('redirect'),
    TRUSTED_PROXIES: '127.0.0.1,::1',
    // Its own consumer group: an analytics of another stack (say `npm run stack` on the
    // development database) never takes these tests' visits.
    KAFKA_CONSUMER_GROUP: 'analytics-test',
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const started = new Map<ServiceName, ServiceProcess[]>();
  const add = async (name: ServiceName, extra: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> => {
    const first = !started.has(name);
    started.set(name, started.get(name) ?? []);
    const port = first ? (ports.get(name) ?? (await freePort())) : await freePort();
    const service = await startService(name, port, {
      ...env,
      ...options.serviceEnv?.[name],
      ...extra,
    });
    started.get(name)?.push(service);
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
    output: () =>
      [...started.values()]
        .flat()
        .map((service) => `--- ${service.name} :${service.port} ---\n${service.output()}`)
        .join('\n'),
    stop: async () => {
      await Promise.all([...started.values()].flat().map((service) => service.stop('SIGTERM')));
    },
  };
  // The services behind the gateway start side by side, the gateway last.
  const backends = options.services.filter((name) => name !== 'gateway');
  const groups = options.services.includes('gateway')
    ? [backends, ['gateway' as const]]
    : [backends];
  for (const group of groups) {
    const results = await Promise.allSettled(group.map((name) => add(name)));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) {
      await stack.stop();
      throw failed.reason;
    }
  }
  return stack;
}

export interface Stack {
  /** The public origin: the gateway. */
  url: string;
  services: Record<ServiceName, ServiceProcess>;
  /** The shared internal secret, for tests that call a service's internal API. */
  internalSecret: string;
  output(): string;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra variables for every service (GOOGLE_*, rate limits...). */
  env?: NodeJS.ProcessEnv;
  /** Extra variables for one service. */
  serviceEnv?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
}

/**
 * The whole set of services, wired as `npm run stack` wires them. PUBLIC_ORIGIN is the
 * gateway's own address, so sign-in callbacks and same-origin checks work.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const gatewayPort = await freePort();
  const url = `http://127.0.0.1:${gatewayPort}`;
  const stack = await startTestStack({
    services: ['auth', 'links', 'analytics', 'redirect', 'gateway'],
    ports: { gateway: gatewayPort },
    env: { PUBLIC_ORIGIN: url, KAFKA_CONSUMER_GROUP: 'analytics-stack-test', ...options.env },
    serviceEnv: options.serviceEnv,
  });
  const names: ServiceName[] = ['auth', 'links', 'analytics', 'redirect', 'gateway'];
  return {
    url,
    services: Object.fromEntries(names.map((name) => [name, stack.get(name)])) as Record<
      ServiceName,
      ServiceProcess
    >,
    internalSecret: stack.secret,
    output: () => stack.output(),
    stop: () => stack.stop(),
  };
}
