import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import {
  InProcessLiveVisits,
  InProcessVisitBus,
  kafkaVisitSource,
  loadAnalyticsConfig,
  redisVisitNotifier,
  startAnalytics,
} from '@shortener/analytics';
import { loadAuthConfig, startAuth } from '@shortener/auth';
import { createLogger, inProcess, type Adapter, type Logger } from '@shortener/chassis';
import {
  connectAdapters as gatewayRedis,
  loadGatewayConfig,
  MemoryRateLimiter,
  startGateway,
} from '@shortener/gateway';
import { MemoryLinkCache, redisLinkCache, type LinkCache } from '@shortener/link-cache';
import { loadLinksConfig, startLinks } from '@shortener/links';
import {
  kafkaVisitPublisher,
  loadRedirectConfig,
  startRedirect,
  type VisitPublisher,
} from '@shortener/redirect';

/** Variables as the services read them: the host's environment plus what it decides. */
type Settings = Readonly<Record<string, string | undefined>>;

export interface Composition {
  /**
   * The environment the operator gave (read, never written): DATABASE_URL, REDIS_URL and
   * KAFKA_BROKERS, when set, put the services on those real servers.
   */
  environment: Settings;
  /** What every service is given on top of it (the database, the internal secret...). */
  shared: Settings;
  /** Where the gateway listens: the public port, on the first of the public hosts. */
  publicPort: number;
  publicHost: string;
  /** The gateway's ops port, if any (one port cannot serve every service). */
  opsPort: string | undefined;
}

/** How to stop what was started, pushed in start order; the host stops them in reverse. */
export type Stops = Array<{ name: string; stop: (reason: string) => Promise<void> }>;

class StartupProblem extends Error {}
export { StartupProblem as ComposeProblem };

/**
 * Waits until a service has connected and migrated. One at a time: PGlite serves every
 * connection from one backend, and migrations are best not interleaved there.
 */
async function databaseReady(name: string, port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      const report = (await response.json()) as { checks?: Record<string, string> };
      const postgres = report.checks?.['postgres'];
      if (postgres === undefined || postgres === 'ok') return;
    } catch {
      // not answering yet
    }
    if (Date.now() > deadline) {
      throw new StartupProblem(`${name} could not reach its database within a minute`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the host needs of a started service. */
interface Running {
  port: number;
  shutdown: (reason: string) => Promise<void>;
}

/** A service as services/services.json lists it (the fields the host reads). */
interface ListedService {
  name: string;
  urlVariable: string | null;
  public: boolean;
}

/** The one list of services: their names, start order and how the others find them. */
function serviceList(): ListedService[] {
  const file = path.resolve(__dirname, '../../services.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { services: ListedService[] }).services;
}

/**
 * Composes every service in this process, in the order of the service list: each gets a
 * configuration object (validated by its own loader from the settings, as its main.ts does
 * from the environment) and its adapters, in-process ones unless the operator named a real
 * server. One link cache is shared by links and the redirect, one visit bus by the redirect
 * and analytics. The internal services listen on loopback ports of their own; the public one
 * (the gateway) on the public port.
 */
export async function startServices(
  stops: Stops,
  composition: Composition,
): Promise<{ port: number; server: Server }> {
  const { environment } = composition;
  const urls: Record<string, string> = {};
  const internal = (): Settings => ({
    ...environment,
    ...composition.shared,
    ...urls,
    PORT: '0',
    HOST: '127.0.0.1',
    // The internal services answer /readyz to this process on their own loopback port
    // (databaseReady); OPS_PORT is the gateway's.
    OPS_PORT: undefined,
  });

  const redisUrl = environment['REDIS_URL'];
  const kafka = Boolean(environment['KAFKA_BROKERS']);
  const linkCache = redisUrl ? undefined : new MemoryLinkCache();
  const bus = kafka ? undefined : new InProcessVisitBus();
  const liveVisits = redisUrl ? undefined : new InProcessLiveVisits();
  const cacheFor = (log: Logger, url: string): Adapter<LinkCache> =>
    linkCache ? inProcess(linkCache) : redisLinkCache(url, log);

  let gateway: { port: number; server: Server } | undefined;
  const starters: Record<string, () => Promise<Running>> = {
    analytics: () => {
      const config = loadAnalyticsConfig(internal());
      const log = createLogger('analytics', config.LOG_LEVEL);
      const visits = bus
        ? inProcess(bus, [bus.readiness('visit bus')])
        : kafkaVisitSource(config, log);
      const notifier = liveVisits
        ? inProcess(liveVisits)
        : redisVisitNotifier(config.REDIS_URL, log);
      return startAnalytics({ config, logger: log, adapters: { visits, notifier }, hosted: true });
    },
    links: () => {
      const config = loadLinksConfig(internal());
      const log = createLogger('links', config.LOG_LEVEL);
      const adapters = { linkCache: cacheFor(log, config.REDIS_URL) };
      return startLinks({ config, logger: log, adapters, hosted: true });
    },
    auth: () => {
      const config = loadAuthConfig(internal());
      return startAuth({ config, logger: createLogger('auth', config.LOG_LEVEL), hosted: true });
    },
    redirect: () => {
      const config = loadRedirectConfig(internal());
      const log = createLogger('redirect', config.LOG_LEVEL);
      const visits: Adapter<VisitPublisher> = bus
        ? inProcess(bus, [bus.readiness('visit consumer')])
        : kafkaVisitPublisher(config, log);
      const adapters = { linkCache: cacheFor(log, config.REDIS_URL), visits };
      return startRedirect({ config, logger: log, adapters, hosted: true });
    },
    gateway: async () => {
      const config = loadGatewayConfig({
        ...environment,
        ...composition.shared,
        ...urls,
        PORT: String(composition.publicPort),
        HOST: composition.publicHost,
        OPS_PORT: composition.opsPort,
      });
      const log = createLogger('gateway', config.LOG_LEVEL);
      const adapters = liveVisits
        ? { rateLimits: inProcess(new MemoryRateLimiter()), liveVisits: inProcess(liveVisits) }
        : gatewayRedis(config, log);
      const running = await startGateway({ config, logger: log, adapters, hosted: true });
      gateway = { port: running.port, server: running.app.getHttpServer() as Server };
      return running;
    },
  };

  for (const service of serviceList()) {
    const start = starters[service.name];
    if (!start) throw new StartupProblem(`the embedded mode cannot start ${service.name} yet`);
    const running = await start();
    stops.push({ name: service.name, stop: (reason) => running.shutdown(reason) });
    if (service.urlVariable) urls[service.urlVariable] = `http://127.0.0.1:${running.port}`;
    // The public service comes last and waits for nothing: the others are ready by now.
    if (!service.public) await databaseReady(service.name, running.port);
  }
  if (!gateway) throw new StartupProblem('the service list names no gateway');
  return gateway;
}
