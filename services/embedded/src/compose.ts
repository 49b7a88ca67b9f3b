import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { InProcessLiveVisits, InProcessVisitBus, service as analytics } from '@shortener/analytics';
import { service as auth } from '@shortener/auth';
import { inProcess, startService, type RunningService } from '@shortener/chassis';
import {
  InProcessKeyRevocations,
  memoryRateLimiters,
  service as gateway,
} from '@shortener/gateway';
import { MemoryLinkCache, MemoryLinkCounters } from '@shortener/link-cache';
import { service as links } from '@shortener/links';
import { service as redirect } from '@shortener/redirect';
import { privateSocket } from './private-socket';

/** Variables as the services read them: the host's environment plus what it decides. */
type Settings = Readonly<Record<string, string | undefined>>;

interface Composition {
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
 * (the gateway) on the public port. The gateway is the edge: it reaches the redirect service
 * on a Unix socket in a folder only this user can enter, the one place where a visitor's
 * address is believed as named (on the redirect's port no one's is).
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

  // Removed after the redirect service has stopped (stops run in reverse).
  const redirectSocket = privateSocket('redirect');
  stops.push({
    name: 'the redirect socket folder',
    stop: () => Promise.resolve(redirectSocket.remove()),
  });

  const redisUrl = environment['REDIS_URL'];
  const kafka = Boolean(environment['KAFKA_BROKERS']);
  const linkCache = redisUrl ? undefined : new MemoryLinkCache();
  const bus = kafka ? undefined : new InProcessVisitBus();
  const liveVisits = redisUrl ? undefined : new InProcessLiveVisits();

  // Each service starts as its main.ts starts it (startService: its config loader, its
  // connectAdapters), with the settings above and the in-process adapters given here: an
  // adapter not given is the real one its main.ts connects.
  const hosted = true;
  const starters: Record<string, () => Promise<RunningService>> = {
    analytics: () =>
      startService(analytics, {
        source: internal(),
        hosted,
        given: {
          visits: bus && inProcess(bus, [bus.readiness('visit bus')]),
          notifier: liveVisits && inProcess(liveVisits),
        },
      }),
    links: () =>
      startService(links, {
        source: internal(),
        hosted,
        given: { linkCache: linkCache && inProcess(linkCache) },
      }),
    auth: () => startService(auth, { source: internal(), hosted }),
    redirect: () =>
      startService(redirect, {
        source: { ...internal(), UNIX_SOCKET: redirectSocket.path, TRUSTED_PROXIES: '' },
        hosted,
        given: {
          linkCache: linkCache && inProcess(linkCache),
          visits: bus && inProcess(bus, [bus.readiness('visit consumer')]),
          counters: linkCache && inProcess(new MemoryLinkCounters()),
        },
      }),
    gateway: () =>
      startService(gateway, {
        source: {
          ...environment,
          ...composition.shared,
          ...urls,
          PORT: String(composition.publicPort),
          HOST: composition.publicHost,
          OPS_PORT: composition.opsPort,
          REDIRECT_SOCKET: redirectSocket.path,
          UNIX_SOCKET: undefined,
        },
        hosted,
        given: {
          rateLimits: liveVisits && inProcess(memoryRateLimiters),
          liveVisits: liveVisits && inProcess(liveVisits),
          keyRevocations: liveVisits && inProcess(new InProcessKeyRevocations()),
        },
      }),
  };

  let publicService: RunningService | undefined;
  for (const service of serviceList()) {
    const start = starters[service.name];
    if (!start) throw new StartupProblem(`the embedded mode cannot start ${service.name} yet`);
    const running = await start();
    stops.push({ name: service.name, stop: (reason) => running.shutdown(reason) });
    if (service.urlVariable) urls[service.urlVariable] = `http://127.0.0.1:${running.port}`;
    // The public service comes last and waits for nothing: the others are ready by now.
    if (service.public) publicService = running;
    else await databaseReady(service.name, running.port);
  }
  if (!publicService) throw new StartupProblem('the service list names no gateway');
  return { port: publicService.port, server: publicService.server };
}
