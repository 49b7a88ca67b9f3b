import './young-generation';
import './tracing';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, SHUTDOWN_TIMEOUT_MS } from '@shortener/chassis';
import { stopTracing } from '@shortener/telemetry';
import { ComposeProblem, startServices } from './compose';
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
 * DATABASE_URL, REDIS_URL and KAFKA_BROKERS switch each to a real server instead. This file
 * is the program's entry: it reads the environment (and never writes it), and hands each
 * service a configuration and adapters (compose.ts).
 */

type Stop = { name: string; stop: (reason: string) => Promise<void> };

class StartupProblem extends Error {}

/** Read only: the services get configuration objects, never variables set here. */
const env: Readonly<NodeJS.ProcessEnv> = process.env;

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

async function main(): Promise<void> {
  const publicPort = Number(env['PORT'] ?? 8080);
  // This machine only, unless HOST says otherwise (`localhost` may resolve to either).
  const publicHosts = env['HOST'] ? [env['HOST']] : LOOPBACK_HOSTS;
  const opsPort = env['OPS_PORT'] || undefined;
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

  // Stopped last (in reverse): the spans of every other stop are exported.
  const stops: Stop[] = [{ name: 'traces', stop: () => stopTracing() }];
  let shuttingDown = false;
  const shutdown = async (reason: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    // As every service process: a step that hangs cannot keep the port taken for ever.
    setTimeout(() => {
      process.stderr.write(
        `embedded: shutdown took longer than ${SHUTDOWN_TIMEOUT_MS} ms, exiting\n`,
      );
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
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
  if (postgres) stops.push({ name: 'embedded PostgreSQL', stop: () => postgres.stop() });

  const [firstHost = '127.0.0.1', ...otherHosts] = bound.map(({ host }) => host);
  const gateway = await startServices(stops, {
    environment: env,
    shared: {
      DATABASE_URL: postgres?.url ?? env['DATABASE_URL'],
      INTERNAL_API_SECRET: env['INTERNAL_API_SECRET'] || randomBytes(32).toString('base64url'),
      LOG_LEVEL: env['LOG_LEVEL'] ?? 'warn',
      PUBLIC_ORIGIN: env['PUBLIC_ORIGIN'] ?? `http://localhost:${publicPort}`,
      LOCAL_SIGN_IN: String(signIn.kind === 'local'),
      // The gateway is the edge: it believes X-Forwarded-For only from proxies its operator
      // names (TRUSTED_PROXIES in the environment), none by default.
    },
    publicPort,
    publicHost: firstHost,
    opsPort,
  });
  for (const host of otherHosts) {
    const extra = await alsoListen(gateway.server, gateway.port, host);
    // Only stops accepting: its connections are the gateway's, which drains and closes
    // them (waiting for them here, before the gateway stops, waited for its live streams).
    stops.push({ name: `gateway on ${host}`, stop: () => Promise.resolve(void extra.close()) });
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
    error instanceof ServerUnreachable ||
    error instanceof ComposeProblem
  ) {
    fail(error.message);
  }
  if (error instanceof ConfigError) {
    // It names the service and every variable to fix.
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
