import type { Server } from 'node:http';
import { adapterChecks, type Adapters } from './adapter';
import { env } from './config';
import { createLogger, type Logger } from './logger';
import type { ReadinessCheck } from './readiness';
import { runMain } from './startup';

/**
 * The variables every service reads for its listener, its logs and its ops port (the
 * gateway too: see serviceConfigShape for the others). Spread into a service's config shape.
 */
export function serverConfigShape(defaultPort: number) {
  return {
    PORT: env.port(defaultPort),
    HOST: env.host(),
    LOG_LEVEL: env.logLevel(),
    /** Set: /readyz and /metrics only on this port (on OPS_HOST, else HOST), none on PORT. */
    OPS_PORT: env.opsPort(),
    OPS_HOST: env.opsHost(),
    KEEP_ALIVE_TIMEOUT_MS: env.keepAliveTimeout(),
  };
}

/**
 * serverConfigShape and the internal secret of a service behind the gateway, which checks
 * what it signs (internal calls, link cache entries) and during a rotation also accepts the
 * previous one.
 */
export function serviceConfigShape(defaultPort: number) {
  return {
    ...serverConfigShape(defaultPort),
    /** Shared with the gateway and the other services: signs and checks internal calls. */
    INTERNAL_API_SECRET: env.secret(),
    INTERNAL_API_SECRET_PREVIOUS: env.secret().optional(),
  };
}

/** Adapters a host builds itself (the embedded mode's in-process ones); the rest are connected. */
export type GivenAdapters<A extends Adapters<A>> = { [K in keyof A]?: A[K] | undefined };

export interface StartOptions<Config, A extends Adapters<A>> {
  /** The validated configuration (from the environment in main.ts, from the embedded host). */
  config: Config;
  adapters: A;
  logger: Logger;
  /**
   * Hosted inside another process with other services (the embedded mode): the host handles
   * signals and calls `shutdown` itself, and a finished shutdown does not exit the process.
   */
  hosted: boolean;
}

/** A started service, whatever it is built with. */
export interface RunningService {
  port: number;
  /** Its HTTP server (the embedded host also listens with the gateway's on more hosts). */
  server: Server;
  shutdown: (reason: string) => Promise<void>;
}

/**
 * What every service exports from its index.ts as `service`: its name, how its configuration
 * is read, how its real adapters are connected, and how it starts. A process's main.ts runs
 * it (runService); the embedded host starts each with its own settings and in-process
 * adapters (startService), so both go through the same functions.
 */
export interface Service<
  Config extends { LOG_LEVEL: string },
  A extends Adapters<A> = Record<never, never>,
> {
  name: string;
  loadConfig: (source?: NodeJS.ProcessEnv) => Config;
  /**
   * The distributed mode's adapters from the configuration (Redis, Kafka), except those
   * `given`; absent for a service that talks to nothing but PostgreSQL.
   */
  connectAdapters?: (config: Config, logger: Logger, given?: GivenAdapters<A>) => A;
  start: (options: StartOptions<Config, A>) => Promise<RunningService>;
}

/**
 * A service's connectAdapters from the builder of each of its real adapters: builds those
 * not given, and only those (a builder connects as it builds).
 */
export function adapterConnector<Config, A extends Adapters<A>>(
  builders: (config: Config, logger: Logger) => { [K in keyof A]: () => A[K] },
): (config: Config, logger: Logger, given?: GivenAdapters<A>) => A {
  return (config, logger, given = {}) => {
    const build = builders(config, logger);
    const adapters: Partial<A> = {};
    for (const key of Object.keys(build) as Array<keyof A>) {
      adapters[key] = given[key] ?? build[key]();
    }
    return adapters as A;
  };
}

/**
 * Reads the service's configuration from `source`, connects its adapters (but those given)
 * and starts it. Whatever fails, a bad configuration included, rejects (runMain says why).
 */
export async function startService<Config extends { LOG_LEVEL: string }, A extends Adapters<A>>(
  service: Service<Config, A>,
  {
    source,
    hosted,
    given = {},
  }: { source: NodeJS.ProcessEnv; hosted: boolean; given?: GivenAdapters<A> },
): Promise<RunningService> {
  const config = service.loadConfig(source);
  const logger = createLogger(service.name, config.LOG_LEVEL);
  const adapters = service.connectAdapters?.(config, logger, given) ?? ({} as A);
  return service.start({ config, adapters, logger, hosted });
}

/** A service's main.ts: the service as its own process, configured from the environment. */
export function runService<Config extends { LOG_LEVEL: string }, A extends Adapters<A>>(
  service: Service<Config, A>,
): void {
  runMain(service.name, () => startService(service, { source: process.env, hosted: false }));
}

/**
 * What a service's /readyz runs: its own checks (its database, the services it calls), then
 * every adapter's, reported but never failing readiness (adapterChecks).
 */
export function readinessChecks<A extends Adapters<A>>(
  own: readonly ReadinessCheck[],
  adapters: A,
): ReadinessCheck[] {
  return [...own, ...adapterChecks(adapters)];
}
