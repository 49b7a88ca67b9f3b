// PostgreSQL: use the server DATABASE_URL names; start the local Debian cluster only
// when it is installed but stopped; make sure the databases the services need exist.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { InfraError, reason } from './errors.mjs';
import { isLocalHost } from './net.mjs';
import { seconds } from './output.mjs';
import { run, sleep, which } from './proc.mjs';
import { readState, recordState } from './state.mjs';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/shortener';
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOENT', // unix socket missing
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  '57P03', // the database system is starting up
]);

/** Parsed DATABASE_URL. `address` is safe to print: it never includes the password. */
export function postgresTarget(env = process.env) {
  const raw = env.DATABASE_URL || DEFAULT_URL;
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new InfraError(
      'DATABASE_URL is not a valid URL: expected postgres://user[:password]@host:port/database.',
    );
  }
  if (!/^postgres(ql)?:$/.test(url.protocol)) {
    throw new InfraError(
      `DATABASE_URL must start with postgres:// or postgresql://, not ${url.protocol}//.`,
    );
  }
  const host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost';
  const port = Number(url.port || url.searchParams.get('port') || 5432);
  const user = decodeURIComponent(url.username) || process.env.PGUSER || os.userInfo().username;
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  return {
    host,
    port,
    user,
    database,
    address: `${host}:${port}/${database}`,
    urlFor(name) {
      const copy = new URL(raw);
      copy.pathname = `/${encodeURIComponent(name)}`;
      return copy.toString();
    },
  };
}

async function connect(target, database) {
  const client = new pg.Client({
    connectionString: target.urlFor(database),
    connectionTimeoutMillis: 3000,
  });
  // A server restart later would otherwise surface as an unhandled 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
}

function isUnreachable(error) {
  return UNREACHABLE.has(error.code) || /timeout|terminated unexpectedly/i.test(error.message);
}

/** Turns a connection error the user must fix into one line; the server's text never holds the password. */
function explain(error, target) {
  const where = `PostgreSQL at ${target.host}:${target.port}`;
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new InfraError(
      `The DATABASE_URL host "${target.host}" does not resolve: fix DATABASE_URL.`,
    );
  }
  if (error.code === '28P01' || error.code === '28000') {
    return new InfraError(`${where} refused the login: ${reason(error)}. Fix DATABASE_URL.`);
  }
  if (/SASL|password must be a string/i.test(error.message)) {
    return new InfraError(
      `${where} asks for a password for user "${target.user}" but DATABASE_URL gives none: add it to DATABASE_URL.`,
    );
  }
  return new InfraError(`${where} failed: ${reason(error)}.`);
}

/** One attempt: a client on the target database, or why not. */
async function probe(target) {
  try {
    return { client: await connect(target, target.database) };
  } catch (error) {
    if (error.code === '3D000') return { missingDatabase: true };
    if (isUnreachable(error)) return { unreachable: error };
    throw explain(error, target);
  }
}

async function probeUntil(target, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await probe(target);
    if (!outcome.unreachable || Date.now() > deadline) return outcome;
    await sleep(250);
  }
}

/** Debian clusters (pg_lsclusters) as { version, name, port, status, dataDir }. */
async function localClusters() {
  const { code, stdout } = await run('pg_lsclusters', ['-h']);
  if (code !== 0) return [];
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 6)
    .map(([version, name, port, status, , dataDir]) => ({
      version,
      name,
      port: Number(port),
      status,
      dataDir,
    }));
}

function postmasterPid(dataDir) {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

async function startLocalCluster(target, cause) {
  const notHere = `PostgreSQL is not reachable at ${target.host}:${target.port}`;
  if (!isLocalHost(target.host)) {
    throw new InfraError(
      `${notHere} (${reason(cause)}): start that server or set DATABASE_URL to a reachable one.`,
    );
  }
  if (!which('pg_ctlcluster')) {
    throw new InfraError(
      `${notHere} and is not installed here: install it (Debian: apt-get install postgresql) or set DATABASE_URL to a reachable server.`,
    );
  }
  const cluster = (await localClusters()).find((c) => c.port === target.port);
  if (!cluster) {
    throw new InfraError(
      `${notHere} and no local PostgreSQL cluster uses port ${target.port} (see pg_lsclusters): create one (pg_createcluster) or fix DATABASE_URL.`,
    );
  }
  const id = `${cluster.version}/${cluster.name}`;
  const { code, stdout, stderr } = await run('pg_ctlcluster', [
    '--skip-systemctl-redirect',
    cluster.version,
    cluster.name,
    'start',
  ]);
  if (code !== 0) {
    const why = (stderr || stdout).trim().split('\n').pop() || `exit code ${code}`;
    throw new InfraError(
      `${notHere} and starting cluster ${id} failed: ${why} (see ${cluster.dataDir}/../log or /var/log/postgresql).`,
    );
  }
  const entry = { cluster: id, pid: postmasterPid(cluster.dataDir) };
  // Recorded before waiting, so `down` can still stop it if this command is interrupted.
  recordState('postgres', entry);
  return entry;
}

function quoteIdent(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

async function ensureDatabases(target, client, wanted) {
  let existing = new Set();
  if (client) {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname = ANY($1)', [
      wanted,
    ]);
    existing = new Set(rows.map((row) => row.datname));
  }
  const missing = wanted.filter((name) => !existing.has(name));
  if (!missing.length) return [];

  let admin;
  try {
    admin = await connect(target, 'postgres');
  } catch (error) {
    throw new InfraError(
      `Cannot reach the "postgres" maintenance database at ${target.host}:${target.port} to create ${missing.join(', ')}: ${reason(error)}. Create them yourself.`,
    );
  }
  const created = [];
  try {
    for (const name of missing) {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [
        name,
      ]);
      if (rowCount) continue;
      try {
        await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
        created.push(name);
      } catch (error) {
        if (error.code === '42P04') continue; // created meanwhile by someone else
        if (error.code === '42501') {
          throw new InfraError(
            `User "${target.user}" may not create databases on ${target.host}:${target.port}: create "${name}" yourself or grant CREATEDB.`,
          );
        }
        throw new InfraError(`Creating database "${name}" failed: ${reason(error)}.`);
      }
    }
  } finally {
    await admin.end().catch(() => {});
  }
  return created;
}

/**
 * @param {{ databases?: string[], report: ReturnType<import('./output.mjs').reporter> }} options
 * @returns {Promise<{ address: string, started: boolean, cluster?: string, pid?: number, created: string[] }>}
 */
export async function ensurePostgres({ databases = [], report }) {
  const began = Date.now();
  const target = postgresTarget();
  let outcome = await probeUntil(target, 0);
  if (outcome.unreachable?.code === '57P03') outcome = await probeUntil(target, 30_000); // starting up
  let startedEntry;
  if (outcome.unreachable) {
    startedEntry = await startLocalCluster(target, outcome.unreachable);
    outcome = await probeUntil(target, 30_000);
    if (outcome.unreachable) {
      throw new InfraError(
        `PostgreSQL cluster ${startedEntry.cluster} started but ${target.host}:${target.port} still does not answer (${reason(outcome.unreachable)}): check /var/log/postgresql.`,
      );
    }
  }
  const wanted = [...new Set([target.database, ...databases])];
  let created;
  try {
    created = await ensureDatabases(target, outcome.client, wanted);
  } finally {
    await outcome.client?.end().catch(() => {});
  }

  const earlier = !startedEntry && readState().postgres;
  const how = startedEntry
    ? `started, cluster ${startedEntry.cluster}, ${seconds(Date.now() - began)}`
    : earlier
      ? `already running, started by infra, cluster ${earlier.cluster}`
      : 'already running';
  const extra = created.length ? `; created ${created.join(', ')}` : '';
  report.line('PostgreSQL', target.address, `ready (${how}${extra})`);
  return {
    address: target.address,
    started: Boolean(startedEntry),
    ...(startedEntry ?? {}),
    created,
  };
}

/** Stops the cluster `up` started (per the state file); leaves any other server alone. */
export async function stopPostgres({ report }) {
  const entry = readState().postgres;
  const target = postgresTarget();
  if (!entry) return { stopped: false };
  const [version, name] = String(entry.cluster).split('/');
  const { code, stdout, stderr } = await run('pg_ctlcluster', [
    '--skip-systemctl-redirect',
    version,
    name,
    'stop',
  ]);
  const output = `${stderr}${stdout}`;
  if (code !== 0 && !/not running/i.test(output)) {
    throw new InfraError(
      `Stopping PostgreSQL cluster ${entry.cluster} failed: ${output.trim().split('\n').pop()}`,
    );
  }
  recordState('postgres', undefined);
  report.line('PostgreSQL', target.address, `stopped (cluster ${entry.cluster})`);
  return { stopped: true, cluster: entry.cluster };
}

export async function postgresStatus() {
  const target = postgresTarget();
  const entry = readState().postgres;
  let reachable = false;
  let detail = '';
  try {
    const outcome = await probe(target);
    await outcome.client?.end().catch(() => {});
    reachable = !outcome.unreachable;
    if (outcome.missingDatabase) detail = `database ${target.database} missing`;
    if (outcome.unreachable) detail = reason(outcome.unreachable);
  } catch (error) {
    detail = error.message;
  }
  return {
    name: 'PostgreSQL',
    address: target.address,
    reachable,
    detail,
    startedByInfra: Boolean(entry),
    pid: entry?.pid,
    cluster: entry?.cluster,
  };
}
