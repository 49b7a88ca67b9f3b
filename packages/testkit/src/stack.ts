import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEdge, type EdgeProcess } from './edge';
import { testServers } from './env';
import { freePort } from './ports';
import { startServiceProcess, untilReady, type ServiceProcess } from './service-process';
import { ServiceRouter } from './service-router';
import { publicService, REPO_ROOT, serviceList, startOrder, type ServiceName } from './services';

export interface Stack {
  /**
   * The public origin: the gateway's address, or the edge's with `edge` (also every
   * service's PUBLIC_ORIGIN, so sign-in callbacks and same-origin checks work). Throws when
   * the gateway is not part of the stack.
   */
  readonly url: string;
  /**
   * With `edge`: the Unix sockets (their UNIX_SOCKETs) of the first redirect instance and
   * gateway, the edge's ways in, in a folder only this user can enter.
   */
  readonly redirectSocket: string | undefined;
  readonly gatewaySocket: string | undefined;
  /** The shared internal secret, for tests that call a service's internal API. */
  secret: string;
  /** The environment every service was given (before its own extras). */
  env: NodeJS.ProcessEnv;
  /** The first instance of a service. */
  get(name: ServiceName): ServiceProcess;
  /** Every instance of a service (several redirect instances, for instance). */
  all(name: ServiceName): ServiceProcess[];
  /**
   * Starts one more instance of a service, wired like the others, on a port of its own; from
   * the build in `root` when given (another release's), else from the stack's for that service.
   */
  add(name: ServiceName, env?: NodeJS.ProcessEnv, root?: string): Promise<ServiceProcess>;
  /** Stops an instance with `signal` and starts it again: same port, same environment. */
  restart(service: ServiceProcess, signal: NodeJS.Signals): Promise<ServiceProcess>;
  /** With `serviceRouters`: the Service-like router in front of a service's instances. */
  router(name: ServiceName): ServiceRouter;
  /** Everything every instance printed, for failure messages. */
  output(): string;
  /** SIGTERM to every instance; one still running 15 s later (a bug) gets SIGKILL. */
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Which services (every one in the list unless given); started in dependency order. */
  services?: ServiceName[];
  /** Ports chosen beforehand; the others are free ports. */
  ports?: Partial<Record<ServiceName, number>>;
  /** Extra variables for every service (GOOGLE_*, rate limits...). */
  env?: NodeJS.ProcessEnv;
  /** Extra variables for one service. */
  serviceEnv?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
  /**
   * nginx in front as `npm run stack` runs it (`url` is then the edge's); unlike it, services
   * still believe X-Forwarded-For from loopback, so tests can play many clients.
   */
  edge?: boolean;
  /**
   * A ServiceRouter in front of each service, as a Kubernetes Service stands there: every
   * service finds the others through their routers, which send connections only to
   * instances whose /readyz answers 200.
   */
  serviceRouters?: boolean;
  /**
   * The checkout whose build runs a service, by service: another release's for a rolling
   * upgrade (tests/compat, scripts/previous-release.mjs); this checkout's for the others.
   */
  roots?: Partial<Record<ServiceName, string>>;
  /**
   * How long each instance may take to answer /healthz (20 s unless given): longer for
   * services that load more at start-up (tracing on).
   */
  healthTimeoutMs?: number;
}

/**
 * Services as `npm run stack` runs them, each its own process from its built dist on a free
 * port, all on the real test servers, sharing one internal secret, each finding the others
 * through their URL variables (services/services.json). A service starts once those it
 * calls answer /healthz; those that do not call each other start side by side.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const names = options.services ?? serviceList().map((service) => service.name);
  const secret = randomBytes(24).toString('base64url');
  const ports = new Map<ServiceName, number>();
  for (const name of names) ports.set(name, options.ports?.[name] ?? (await freePort()));
  const instances = new Map<ServiceName, ServiceProcess[]>();
  const all = (name: ServiceName): ServiceProcess[] => instances.get(name) ?? [];
  const routers = new Map<ServiceName, ServiceRouter>();
  if (options.serviceRouters) {
    for (const name of names) {
      const router = new ServiceRouter(() =>
        all(name).map((instance) => ({
          port: instance.port,
          readyUrl: `${instance.opsUrl}/readyz`,
        })),
      );
      routers.set(name, await router.listen());
    }
  }
  // A service not in the stack is at port 1: nothing answers there.
  const urlOf = (name: ServiceName): string =>
    routers.get(name)?.url ?? `http://127.0.0.1:${ports.get(name) ?? 1}`;
  const gateway = publicService().name;
  if (options.edge && !(ports.has(gateway) && ports.has('redirect'))) {
    throw new Error('an edge needs the gateway and the redirect service in the stack');
  }
  const edgePort = options.edge ? await freePort() : undefined;
  // Where the edge reaches the redirect service and the gateway, as npm run stack has it:
  // sockets in a folder of the stack's own, 0700 (infra/edge.mjs socketFolder).
  const socketFolder = options.edge ? mkdtempSync(path.join(tmpdir(), 'shortener-socket-')) : null;
  const redirectSocket =
    socketFolder === null ? undefined : path.join(socketFolder, 'redirect.sock');
  const gatewaySocket = socketFolder === null ? undefined : path.join(socketFolder, 'gateway.sock');
  const publicOrigin = edgePort !== undefined ? `http://127.0.0.1:${edgePort}` : urlOf(gateway);
  let edge: EdgeProcess | undefined;
  const urlVariables = Object.fromEntries(
    serviceList()
      .filter((service) => service.urlVariable !== null)
      .map((service) => [service.urlVariable, urlOf(service.name)]),
  ) as NodeJS.ProcessEnv;
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: testServers.databaseUrl,
    REDIS_URL: testServers.redisUrl,
    KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
    INTERNAL_API_SECRET: secret,
    ...urlVariables,
    ...(ports.has(gateway) ? { PUBLIC_ORIGIN: publicOrigin } : {}),
    TRUSTED_PROXIES: '127.0.0.1,::1',
    // Its own consumer group: an analytics of another stack (say `npm run stack` on the
    // development database) never takes these tests' visits. Two checkouts testing at once
    // on one broker each name their own (TEST_KAFKA_CONSUMER_GROUP).
    KAFKA_CONSUMER_GROUP: process.env['TEST_KAFKA_CONSUMER_GROUP'] ?? 'analytics-test',
    LOG_LEVEL: 'warn',
    ...options.env,
  };

  const healthTimeout =
    options.healthTimeoutMs === undefined ? {} : { healthTimeoutMs: options.healthTimeoutMs };
  const origins = new Map<ServiceProcess, { name: ServiceName; env: NodeJS.ProcessEnv }>();
  const add = async (
    name: ServiceName,
    extra: NodeJS.ProcessEnv = {},
    root = options.roots?.[name],
  ): Promise<ServiceProcess> => {
    const first = !instances.has(name);
    instances.set(name, all(name));
    const port = first ? (ports.get(name) ?? (await freePort())) : await freePort();
    const socket =
      !first || redirectSocket === undefined
        ? {}
        : name === 'redirect'
          ? { UNIX_SOCKET: redirectSocket }
          : name === gateway
            ? { UNIX_SOCKET: gatewaySocket, REDIRECT_SOCKET: redirectSocket }
            : {};
    const serviceEnv = { ...env, ...options.serviceEnv?.[name], ...socket, ...extra };
    const service = await startServiceProcess(name, port, serviceEnv, {
      ...(root ? { root } : {}),
      ...healthTimeout,
    });
    instances.set(name, [...all(name), service]);
    origins.set(service, { name, env: serviceEnv });
    return service;
  };
  const stack: Stack = {
    get url() {
      if (!ports.has(gateway)) throw new Error(`${gateway} is not part of this stack`);
      return publicOrigin;
    },
    redirectSocket,
    gatewaySocket,
    secret,
    env,
    get: (name) => {
      const service = all(name)[0];
      if (!service) throw new Error(`${name} is not part of this stack`);
      return service;
    },
    all,
    add,
    router: (name) => {
      const router = routers.get(name);
      if (!router)
        throw new Error(`no router in front of ${name}: start the stack with serviceRouters`);
      return router;
    },
    restart: async (service, signal) => {
      const origin = origins.get(service);
      if (!origin) throw new Error(`${service.name} on ${service.port} is not part of this stack`);
      await service.stop(signal);
      const again = await startServiceProcess(origin.name, service.port, origin.env, {
        root: service.root,
        ...healthTimeout,
      });
      origins.set(again, origin);
      instances.set(
        origin.name,
        all(origin.name).map((instance) => (instance === service ? again : instance)),
      );
      return again;
    },
    output: () =>
      [...instances.values()]
        .flat()
        .map(
          (service) =>
            `--- ${service.name} :${service.port}${service.root === REPO_ROOT ? '' : ` (${service.root})`} ---\n${service.output()}`,
        )
        .join('\n'),
    stop: async () => {
      await edge?.stop();
      await Promise.all(
        [...instances.values()].flat().map(async (service) => {
          const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
          await service.stop('SIGTERM');
          clearTimeout(timer);
        }),
      );
      await Promise.all([...routers.values()].map((router) => router.close()));
      if (socketFolder !== null) rmSync(socketFolder, { recursive: true, force: true });
    },
  };
  for (const group of startOrder(names)) {
    const results = await Promise.allSettled(group.map((name) => add(name)));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) {
      await stack.stop();
      throw failed.reason;
    }
  }
  if (edgePort !== undefined) {
    try {
      edge = await startEdge(`unix:${redirectSocket}`, `unix:${gatewaySocket}`, edgePort);
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }
  // A service answers /healthz before it has its database, so a call made in between is a
  // 503: the stack is handed over once every instance is ready.
  try {
    await Promise.all(
      [...instances.values()]
        .flat()
        .map((instance) => untilReady(instance, options.healthTimeoutMs ?? 20_000)),
    );
  } catch (error) {
    const output = stack.output();
    await stack.stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${output}`);
  }
  return stack;
}
