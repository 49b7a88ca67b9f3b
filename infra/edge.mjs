#!/usr/bin/env node
// The public edge of the distributed stack on one machine: nginx, routed as the Kubernetes
// Ingress is (infra/edge/shortener.conf.template, shared with docker-compose.yml): /r/ to the
// redirect service, the rest to the gateway; any host not the product's own (a branded
// domain) wholly to the redirect service.
//
//   node infra/edge.mjs --port 8080 --redirect 127.0.0.1:7004 --gateway 127.0.0.1:7005 [--host 0.0.0.0]
//     runs it in the foreground until Ctrl-C (or SIGTERM); --redirect unix:/path/redirect.sock
//     reaches the redirect service on its Unix socket (its UNIX_SOCKET), as `npm run stack` does;
//     [--own-hosts a.example,b.example] the product's own host names, by default those of
//     PUBLIC_ORIGIN and SHORT_LINK_HOSTS in the environment and this machine's name
//
// `npm run stack` and the benchmarks start it through startEdge(). nginx comes from the
// system (Debian: apt-get install nginx); findNginx() says whether there is one. Its error
// lines go out through infra/edge/redact-queries.awk (awk is POSIX's): no query strings.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { InfraError } from './lib/errors.mjs';
import { INFRA_DIR } from './lib/paths.mjs';

const EDGE_TEMPLATE = path.join(INFRA_DIR, 'edge', 'shortener.conf.template');
/** What nginx's error lines pass through on their way out (no query strings). */
const EDGE_LOG_FILTER = path.join(INFRA_DIR, 'edge', 'redact-queries.awk');

/** The names the template takes (the environment's, in the nginx image). */
const TEMPLATE_NAMES = ['EDGE_PORT', 'REDIRECT_UPSTREAM', 'GATEWAY_UPSTREAM', 'EDGE_HOSTS'];
/** The names that may be given empty. */
const MAY_BE_EMPTY = new Set(['EDGE_HOSTS']);

/** A host name nginx's server_name takes as it is written, and a branded domain could be. */
const DOTTED_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/**
 * The product's own host names the edge must tell from branded domains: those of `entries`
 * (host[:port] or URLs), lower case, without port. Loopback names, IP addresses and one-label
 * names the template already counts as its own (no domain can be one), so they are left out.
 */
export function ownHostNames(entries) {
  const names = [];
  for (const entry of entries) {
    const text = String(entry).trim();
    if (text === '') continue;
    let name;
    try {
      name = new URL(text.includes('://') ? text : `http://${text}`).hostname.replace(/\.$/, '');
    } catch {
      throw new InfraError(`edge: ${text} is not a host name`);
    }
    if (name === 'localhost' || name.endsWith('.localhost') || /^[0-9.]+$/.test(name)) continue;
    if (name.startsWith('[') || !name.includes('.')) continue;
    if (!DOTTED_NAME.test(name)) throw new InfraError(`edge: ${text} is not a host name`);
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The own hosts the environment names, PUBLIC_ORIGIN's and SHORT_LINK_HOSTS', and this
 * machine's name where nginx can take it.
 */
export function ownHostsOf(env = process.env) {
  const machine = hostname().toLowerCase();
  return [
    env.PUBLIC_ORIGIN ?? '',
    ...(env.SHORT_LINK_HOSTS ?? '').split(','),
    ...(DOTTED_NAME.test(machine) ? [machine] : []),
  ];
}

/**
 * The nginx to run: NGINX_PATH if set, else `nginx` on the PATH, else Debian's
 * /usr/sbin/nginx (not on an ordinary user's PATH); null when there is none.
 */
export function findNginx(env = process.env) {
  const candidates = env.NGINX_PATH ? [env.NGINX_PATH] : ['nginx', '/usr/sbin/nginx'];
  for (const candidate of candidates) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return null;
}

/**
 * The template with its ${NAME}s filled in from `values`; nginx's own variables, written
 * without braces, are left alone (as the nginx image's entrypoint does).
 */
function renderEdgeConfig(values, template = readFileSync(EDGE_TEMPLATE, 'utf8')) {
  const missing = TEMPLATE_NAMES.filter(
    (name) => !values[name] && !(MAY_BE_EMPTY.has(name) && values[name] === ''),
  );
  if (missing.length > 0) throw new InfraError(`edge: no value for ${missing.join(', ')}`);
  return template.replace(/\$\{([A-Z_]+)\}/g, (whole, name) =>
    TEMPLATE_NAMES.includes(name) ? values[name] : whole,
  );
}

/**
 * A 0700 folder for the services' Unix sockets, where the edge reaches them; whoever connects
 * there is believed about a visitor's address, so only this user may. `remove()` deletes it.
 */
export function socketFolder() {
  const dir = mkdtempSync(path.join(tmpdir(), 'shortener-socket-'));
  return {
    redirect: path.join(dir, 'redirect.sock'),
    gateway: path.join(dir, 'gateway.sock'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * nginx started as root runs its workers as `nobody` unless told otherwise: as this user
 * instead, the only one that may open the services' sockets (socketFolder). Started as
 * another user it cannot switch, and runs them as itself.
 */
function workerUser() {
  return process.getuid?.() === 0 ? `user ${userInfo().username};\n` : '';
}

/** nginx's own settings around the shared server block: everything in `dir`, nothing global. */
function mainConfig(dir) {
  const temp = (name) => path.join(dir, 'temp', name);
  return `# Written by infra/edge.mjs for one run; the routing is in shortener.conf.
# One worker: on one machine the edge's share is small beside the services behind it.
worker_processes 1;
${workerUser()}daemon off;
pid ${path.join(dir, 'nginx.pid')};
error_log stderr warn;
events {
    worker_connections 4096;
}
http {
    client_body_temp_path ${temp('body')};
    proxy_temp_path ${temp('proxy')};
    fastcgi_temp_path ${temp('fastcgi')};
    uwsgi_temp_path ${temp('uwsgi')};
    scgi_temp_path ${temp('scgi')};
    include ${path.join(dir, 'shortener.conf')};
}
`;
}

/**
 * Resolves once nginx has its port and takes connections there: it writes its pid file only
 * after binding, so another server already on the port is never taken for it.
 */
async function listening(host, port, pidFile, { timeoutMs, exited }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = exited();
    if (reason !== null) throw new InfraError(`edge: nginx ${reason} before it listened`);
    const open =
      existsSync(pidFile) &&
      (await new Promise((resolve) => {
        const socket = connect({ host, port });
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      }));
    if (open) return;
    if (Date.now() > deadline) throw new InfraError(`edge: nginx did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts nginx as the edge on `host`:`port`, in front of the redirect service and the
 * gateway (each `host:port`); `ownHosts` are the product's hosts (host[:port] or URLs), any
 * other Host going to the redirect service as a branded domain's. Its configuration, pid file
 * and temporary files live in a folder of its own, removed when it exits. Errors go to
 * `stdio`'s stderr.
 */
export async function startEdge({
  port,
  host = '127.0.0.1',
  redirect,
  gateway,
  ownHosts = ownHostsOf(),
  nginx = findNginx(),
  stdio = ['ignore', 'inherit', 'inherit'],
  timeoutMs = 10_000,
}) {
  if (nginx === null) {
    throw new InfraError('edge: no nginx found (Debian: apt-get install nginx; or set NGINX_PATH)');
  }
  // This user's alone (mkdtemp: 0700), as are nginx's workers (workerUser).
  const dir = mkdtempSync(path.join(tmpdir(), 'shortener-edge-'));
  mkdirSync(path.join(dir, 'temp'), { mode: 0o700 });
  writeFileSync(
    path.join(dir, 'shortener.conf'),
    renderEdgeConfig({
      EDGE_PORT: `${host.includes(':') ? `[${host}]` : host}:${port}`,
      REDIRECT_UPSTREAM: redirect,
      GATEWAY_UPSTREAM: gateway,
      EDGE_HOSTS: ownHostNames(ownHosts).join(' '),
    }),
  );
  writeFileSync(path.join(dir, 'nginx.conf'), mainConfig(dir));
  // nginx's stderr (its error log) goes through the filter, whose output goes where the
  // caller asked for nginx's; read from `child.stderr` when piped. It ends when nginx does.
  const filter = spawn('awk', ['-f', EDGE_LOG_FILTER], {
    stdio: ['pipe', stdio[2] === 'inherit' ? process.stderr : stdio[2], 'inherit'],
  });
  const child = spawn(nginx, ['-p', dir, '-e', 'stderr', '-c', path.join(dir, 'nginx.conf')], {
    stdio: [stdio[0], stdio[1], filter.stdin],
  });
  filter.stdin.destroy();
  child.stderr = filter.stdout;
  // What it says while starting (a port in use, say) goes into the error if it fails.
  let startup = '';
  const heard = (chunk) => (startup += chunk.toString());
  child.stderr?.on('data', heard);
  let exit = null;
  // However it ends (stop(), a signal from whoever started it, a crash), its folder goes.
  const remove = () => rmSync(dir, { recursive: true, force: true });
  child.once('exit', (code, signal) => {
    exit = signal ? `stopped (${signal})` : `exited (${code})`;
    remove();
  });
  child.once('error', (error) => {
    exit = `could not start (${error.message})`;
    remove();
  });
  filter.once('error', (error) => {
    exit = `could not start its log filter (awk: ${error.message})`;
    child.kill('SIGKILL');
  });
  const stop = async () => {
    if (exit !== null) return;
    // SIGQUIT: nginx finishes the requests in flight, then exits.
    const ended = once(child, 'exit');
    child.kill('SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await ended;
    clearTimeout(timer);
  };
  try {
    const probeHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    await listening(probeHost, port, path.join(dir, 'nginx.pid'), {
      timeoutMs,
      exited: () => exit,
    });
  } catch (error) {
    await stop();
    throw startup ? new InfraError(`${error.message}:\n${startup.trim()}`) : error;
  } finally {
    child.stderr?.off('data', heard);
  }
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return {
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`,
    child,
    stop,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      redirect: { type: 'string' },
      gateway: { type: 'string' },
      'own-hosts': { type: 'string' },
    },
  });
  if (!values.redirect || !values.gateway) {
    console.error(
      'usage: node infra/edge.mjs --port 8080 --redirect HOST:PORT|unix:PATH --gateway HOST:PORT [--own-hosts NAME,...]',
    );
    process.exit(2);
  }
  let edge;
  try {
    edge = await startEdge({
      port: Number(values.port),
      host: values.host,
      redirect: values.redirect,
      gateway: values.gateway,
      ...(values['own-hosts'] === undefined ? {} : { ownHosts: values['own-hosts'].split(',') }),
    });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  console.log(`Edge ready: ${edge.url}`);
  let stopping = false;
  const stop = () => {
    stopping = true;
    void edge.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  edge.child.once('exit', (code) => {
    if (stopping) return;
    console.error(`edge: nginx exited (${code}) on its own`);
    process.exit(1);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
