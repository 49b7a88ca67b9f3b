import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { startAnalytics } from '@shortener/analytics';
import { startAuth } from '@shortener/auth';
import { IN_PROCESS } from '@shortener/chassis';
import { startGateway } from '@shortener/gateway';
import { startLinks } from '@shortener/links';
import { startRedirect } from '@shortener/redirect';
import {
  EmbeddedDatabaseError,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from './embedded-postgres';
import { alsoListen, LOOPBACK_HOSTS, PortProblem, publicAddresses } from './public-port';
import { checkServers, ServerUnreachable } from './servers';
import { chooseSignIn, isLoopbackAddress, SignInRefused } from './sign-in';

/**
 * The embedded mode, the default of `npm start`: every service, the web app and the
 * redirect on one port, in one process, with nothing to install but Node. PostgreSQL is
 * PGlite (data kept in DATA_DIR), the link cache and the visit bus live in this process;
 * DATABASE_URL, REDIS_URL and KAFKA_BROKERS switch each to a real server instead.
 */

type Stop = { name: string; stop: (reason: string) => Promise<void> };

class StartupProblem extends Error {}

const env = process.env;

function fail(message: string): never {
  process.stderr.write(`embedded: ${message}\n`);
  process.exit(1);
}

function ensureWritable(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new StartupProblem(
      `the data folder ${folder} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): ` +
        'set DATA_DIR to a folder you can write to',
    );
  }
}

/**
 * The embedded database in the data folder. Files this process creates are its user's
 * alone (umask 077), the folder included.
 */
async function startDatabase(dataDir: string): Promise<EmbeddedPostgres> {
  process.umask(0o077);
  ensureWritable(dataDir);
  return startEmbeddedPostgres(dataDir);
}

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

async function main(): Promise<void> {
  const publicPort = Number(env['PORT'] ?? 8080);
  // This machine only, unless HOST says otherwise (`localhost` may resolve to either).
  const publicHosts = env['HOST'] ? [env['HOST']] : LOOPBACK_HOSTS;
  const opsPort = env['OPS_PORT'] ?? '';
  const dataDir = path.resolve(env['DATA_DIR'] ?? '.data');
  const googleConfigured = Boolean(env['GOOGLE_CLIENT_ID'] && env['GOOGLE_CLIENT_SECRET']);
  if (!Number.isInteger(publicPort) || publicPort < 0 || publicPort > 65535) {
    throw new StartupProblem(`PORT=${env['PORT']} is not a port number`);
  }
  const bound = await publicAddresses(publicPort, publicHosts, (host) => host === '::1');
  const signIn = chooseSignIn({
    googleConfigured,
    loopbackOnly: bound.every(({ address }) => isLoopbackAddress(address)),
    host: env['HOST'],
    LOCAL_SIGN_IN: env['LOCAL_SIGN_IN'],
    NODE_ENV: env['NODE_ENV'],
  });
  await checkServers(env);

  const stops: Stop[] = [];
  let shuttingDown = false;
  const shutdown = async (reason: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    // The edge first, the store last: visits queued by the redirect reach analytics.
    for (const { name, stop } of [...stops].reverse()) {
      try {
        await stop(reason);
      } catch (error) {
        process.stderr.write(`embedded: stopping ${name} failed: ${String(error)}\n`);
      }
    }
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  const embeddedDatabase = !env['DATABASE_URL'];
  const postgres = embeddedDatabase ? await startDatabase(dataDir) : null;
  if (postgres) {
    stops.push({ name: 'embedded PostgreSQL', stop: () => postgres.stop() });
    env['DATABASE_URL'] = postgres.url;
  }
  env['REDIS_URL'] ??= `${IN_PROCESS}://`;
  env['KAFKA_BROKERS'] ??= IN_PROCESS;
  env['INTERNAL_API_SECRET'] ??= randomBytes(32).toString('base64url');
  env['LOG_LEVEL'] ??= 'warn';
  env['PUBLIC_ORIGIN'] ??= `http://localhost:${publicPort}`;
  env['LOCAL_SIGN_IN'] = String(signIn.kind === 'local');

  const internal = async <T extends { port: number; shutdown: (reason: string) => Promise<void> }>(
    name: string,
    variable: string,
    start: (hosted: boolean) => Promise<T>,
  ): Promise<void> => {
    env['PORT'] = '0';
    env['HOST'] = '127.0.0.1';
    // One ops port cannot serve every service: the internal ones answer /readyz to this
    // process on their loopback port (databaseReady), and OPS_PORT is the gateway's.
    env['OPS_PORT'] = '';
    const running = await start(true);
    stops.push({ name, stop: (reason) => running.shutdown(reason) });
    env[variable] = `http://127.0.0.1:${running.port}`;
    await databaseReady(name, running.port);
  };
  await internal('analytics', 'ANALYTICS_URL', startAnalytics);
  await internal('links', 'LINKS_URL', startLinks);
  await internal('auth', 'AUTH_URL', startAuth);
  env['TRUSTED_PROXIES'] ??= '127.0.0.1,::1';
  await internal('redirect', 'REDIRECT_URL', startRedirect);

  const [firstHost, ...otherHosts] = bound.map(({ host }) => host);
  env['PORT'] = String(publicPort);
  env['HOST'] = firstHost;
  env['OPS_PORT'] = opsPort;
  const gateway = await startGateway(true);
  stops.push({ name: 'gateway', stop: (reason) => gateway.shutdown(reason) });
  const gatewayServer = gateway.app.getHttpServer() as Server;
  for (const host of otherHosts) {
    const extra = await alsoListen(gatewayServer, gateway.port, host);
    stops.push({
      name: `gateway on ${host}`,
      stop: () => new Promise((resolve) => extra.close(() => resolve())),
    });
  }
  // The services have migrated: what PGlite wrote meanwhile loses group and world access.
  postgres?.tighten();

  const where = embeddedDatabase ? `data in ${dataDir}` : 'data in PostgreSQL at DATABASE_URL';
  const on = bound.map(({ address }) => address).join(' and ');
  process.stdout.write(
    `\nURL shortener is running at http://localhost:${gateway.port} (on ${on}; ${where}).\n` +
      `Sign-in: ${signIn.why}.\n` +
      'Press Ctrl-C to stop.\n\n',
  );
}

main().catch((error: unknown) => {
  if (
    error instanceof StartupProblem ||
    error instanceof PortProblem ||
    error instanceof SignInRefused ||
    error instanceof EmbeddedDatabaseError ||
    error instanceof ServerUnreachable
  ) {
    fail(error.message);
  }
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
