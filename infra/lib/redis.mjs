// Redis: use the server REDIS_URL names; if it is local and down, run a throw-away
// redis-server (no persistence: the links service is the system of record) under .infra/redis.
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { InfraError, reason } from './errors.mjs';
import { isLocalHost } from './net.mjs';
import { seconds } from './output.mjs';
import { paths } from './paths.mjs';
import { argvOf, isAlive, run, sleep, stopProcess, tailFile, which } from './proc.mjs';
import { readState, recordState } from './state.mjs';

const DEFAULT_URL = 'redis://127.0.0.1:6379';
const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT']);

/** Parsed REDIS_URL; `address` never includes the password. */
export function redisTarget(env = process.env) {
  const raw = env.REDIS_URL || DEFAULT_URL;
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new InfraError(
      'REDIS_URL is not a valid URL: expected redis://[:password@]host:port[/db].',
    );
  }
  if (!/^rediss?:$/.test(url.protocol)) {
    throw new InfraError(`REDIS_URL must start with redis:// or rediss://, not ${url.protocol}//.`);
  }
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 6379);
  return {
    url: raw,
    host,
    port,
    password: decodeURIComponent(url.password),
    username: decodeURIComponent(url.username),
    address: `${host}:${port}`,
  };
}

/** PING once: 'ok', or { unreachable } for "nothing there (yet)"; throws what the user must fix. */
async function ping(target) {
  const client = new Redis(target.url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let lastError;
  client.on('error', (error) => (lastError = error));
  try {
    await client.connect();
    const answer = await client.ping();
    if (answer !== 'PONG') throw new Error(`answered ${answer} to PING`);
    return 'ok';
  } catch (error) {
    const cause = lastError && !error.code ? lastError : error;
    if (UNREACHABLE.has(cause.code) || /LOADING/.test(cause.message)) return { unreachable: cause };
    if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(cause.message)) {
      throw new InfraError(
        `Redis at ${target.address} refused the login (${reason(cause)}): fix the password in REDIS_URL.`,
      );
    }
    if (cause.code === 'ENOTFOUND' || cause.code === 'EAI_AGAIN') {
      throw new InfraError(`The REDIS_URL host "${target.host}" does not resolve: fix REDIS_URL.`);
    }
    throw new InfraError(
      `Something at ${target.address} does not answer PING like Redis (${reason(cause)}): stop it or fix REDIS_URL.`,
    );
  } finally {
    client.disconnect();
  }
}

async function pingUntil(target, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await ping(target);
    if (outcome === 'ok' || Date.now() > deadline) return outcome;
    await sleep(100);
  }
}

function isOurRedis(pid) {
  return isAlive(pid) && argvOf(pid).some((arg) => arg.includes('redis-server'));
}

async function startLocalRedis(target, cause) {
  const notHere = `Redis is not reachable at ${target.address}`;
  if (!isLocalHost(target.host)) {
    throw new InfraError(
      `${notHere} (${reason(cause)}): start that server or set REDIS_URL to a reachable one.`,
    );
  }
  if (!which('redis-server')) {
    throw new InfraError(
      `${notHere} and is not installed here: install it (Debian: apt-get install redis-server) or set REDIS_URL to a reachable server.`,
    );
  }
  fs.mkdirSync(paths.redisDir, { recursive: true });
  fs.rmSync(paths.redisPidFile, { force: true });
  const args = [
    '--daemonize', 'yes',
    '--bind', '127.0.0.1', '-::1',
    '--port', String(target.port),
    '--save', '',
    '--appendonly', 'no',
    '--dir', paths.redisDir,
    '--logfile', paths.redisLog,
    '--pidfile', paths.redisPidFile,
  ]; // prettier-ignore
  // Keep REDIS_URL working as written: a password in it becomes the server's password.
  if (target.password && (!target.username || target.username === 'default')) {
    args.push('--requirepass', target.password);
  }
  const { code, stderr, stdout } = await run('redis-server', args, { timeoutMs: 15_000 });
  if (code !== 0) {
    throw new InfraError(`${notHere} and redis-server failed to start (exit code ${code}).`, {
      details: [...(stderr + stdout).trim().split('\n'), ...tailFile(paths.redisLog, 10)],
    });
  }
  const outcome = await pingUntil(target, 10_000);
  const pid = Number(
    fs.existsSync(paths.redisPidFile) && fs.readFileSync(paths.redisPidFile, 'utf8'),
  );
  if (pid) recordState('redis', { pid, port: target.port });
  if (outcome !== 'ok') {
    if (pid) await stopProcess(pid, { graceMs: 5000 });
    recordState('redis', undefined);
    throw new InfraError(`redis-server started but ${target.address} does not answer PING.`, {
      details: tailFile(paths.redisLog, 10),
    });
  }
  return { pid, port: target.port };
}

/**
 * @param {{ report: ReturnType<import('./output.mjs').reporter> }} options
 * @returns {Promise<{ address: string, started: boolean, pid?: number }>}
 */
export async function ensureRedis({ report }) {
  const began = Date.now();
  const target = redisTarget();
  const entry = readState().redis;
  if (entry && !isOurRedis(entry.pid)) recordState('redis', undefined); // stale: it died

  const outcome = await ping(target);
  if (outcome === 'ok') {
    const ours = entry && isOurRedis(entry.pid);
    report.line(
      'Redis',
      target.address,
      ours
        ? `ready (already running, started by infra, pid ${entry.pid})`
        : 'ready (already running)',
    );
    return { address: target.address, started: false };
  }
  const started = await startLocalRedis(target, outcome.unreachable);
  report.line(
    'Redis',
    target.address,
    `ready (started, pid ${started.pid}, ${seconds(Date.now() - began)})`,
  );
  return { address: target.address, started: true, pid: started.pid };
}

/** Stops the redis-server `up` started, if any. */
export async function stopRedis({ report }) {
  const entry = readState().redis;
  if (!entry) return { stopped: false };
  const target = redisTarget();
  const alive = isOurRedis(entry.pid);
  if (alive) await stopProcess(entry.pid, { graceMs: 10_000 });
  fs.rmSync(paths.redisPidFile, { force: true });
  recordState('redis', undefined);
  if (alive) report.line('Redis', target.address, `stopped (pid ${entry.pid})`);
  return { stopped: alive, pid: entry.pid };
}

export async function redisStatus() {
  const target = redisTarget();
  const entry = readState().redis;
  const ours = entry && isOurRedis(entry.pid);
  let reachable = false;
  let detail = '';
  try {
    const outcome = await ping(target);
    reachable = outcome === 'ok';
    if (!reachable) detail = reason(outcome.unreachable);
  } catch (error) {
    detail = error.message;
  }
  return {
    name: 'Redis',
    address: target.address,
    reachable,
    detail,
    startedByInfra: Boolean(ours),
    pid: ours ? entry.pid : undefined,
  };
}
