// `npm run stack`: the distributed stack on one machine (README): the servers, each service as
// its own process, nginx as the edge when there is one (else the gateway, or `--no-edge`).
// Ctrl-C stops what this run started (`-- --keep-infra` leaves the servers up).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNginx, socketFolder, startEdge } from '../infra/edge.mjs';
import { down, up } from '../infra/infra.mjs';
import { buildProduct } from './lib/build.mjs';
import { prefixOutput } from './lib/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const keepInfra = process.argv.includes('--keep-infra');
const nginx = process.argv.includes('--no-edge') ? null : findNginx();

// The services, their ports and how they find each other: services/services.json, in start
// order. A port is moved by <NAME>_PORT (AUTH_PORT...), the public one by PORT. With the
// edge in front, PORT is the edge's and the gateway listens on loopback at GATEWAY_PORT.
const { services } = JSON.parse(readFileSync(path.join(root, 'services', 'services.json'), 'utf8'));
const publicPort = Number(env.PORT ?? services.find((service) => service.public).port);
// Where the edge (nginx, or else the gateway) listens; the rest listen on loopback.
const publicHost = env.HOST ?? '0.0.0.0';
const BEHIND_EDGE_PORT = 7005;
const portOf = (service) => {
  if (!service.public) return Number(env[`${service.name.toUpperCase()}_PORT`] ?? service.port);
  return nginx === null ? publicPort : Number(env.GATEWAY_PORT ?? BEHIND_EDGE_PORT);
};
const ports = Object.fromEntries(services.map((service) => [service.name, portOf(service)]));
// One secret per run unless the operator gives one: it signs the calls between services.
const internalSecret = env.INTERNAL_API_SECRET || randomBytes(32).toString('base64url');
const internalUrls = Object.fromEntries(
  services
    .filter((service) => service.urlVariable !== null)
    .map((service) => [service.urlVariable, `http://127.0.0.1:${ports[service.name]}`]),
);

/** A service's package.json `config`: the Node options and flags it runs with in production. */
function nodeConfig(name) {
  const manifest = JSON.parse(
    readFileSync(path.join(root, 'services', name, 'package.json'), 'utf8'),
  );
  return manifest.config ?? {};
}

/** A service's production Node options (package.json config.nodeOptions), then the caller's. */
function nodeOptions(name) {
  return [nodeConfig(name).nodeOptions, env.NODE_OPTIONS].filter(Boolean).join(' ') || undefined;
}

/** Its command-line flags (config.nodeArgs): V8 flags NODE_OPTIONS does not accept. */
function nodeArgs(name) {
  return nodeConfig(name).nodeArgs?.split(/\s+/).filter(Boolean) ?? [];
}

/** Whether every address `host` names is a loopback one: only this machine can reach it. */
async function onLoopbackOnly(host, isLoopbackAddress) {
  try {
    const addresses = await lookup(host, { all: true });
    return addresses.every(({ address }) => isLoopbackAddress(address));
  } catch {
    return false; // a name that does not resolve: nginx or the gateway will say so
  }
}

/**
 * Who may sign in, by the rule services/embedded/src/sign-in.ts keeps for the stack
 * (chooseStackSignIn): the local sign-in only when asked for, on loopback only; refused
 * beyond it, before anything starts.
 */
async function chooseSignIn() {
  const rules = await import(path.join(root, 'services', 'embedded', 'dist', 'sign-in.js'));
  try {
    return rules.chooseStackSignIn({
      googleConfigured: Boolean(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET),
      loopbackOnly: await onLoopbackOnly(publicHost, rules.isLoopbackAddress),
      host: publicHost,
      LOCAL_SIGN_IN: env.LOCAL_SIGN_IN,
      NODE_ENV: env.NODE_ENV,
    });
  } catch (error) {
    if (!(error instanceof rules.SignInRefused)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

async function main() {
  // What the stack serves, as `npm start` builds it: the services and, if missing, the web app.
  console.log('Building...');
  if (!(await buildProduct(root))) {
    console.error('The build failed; see the errors above.');
    process.exit(1);
  }
  const signIn = await chooseSignIn();
  let started;
  try {
    started = await up();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }

  // The redirect service answers /r/ on a Unix socket too, where the edge (nginx, and the
  // gateway) reaches it without TCP; with nginx the gateway has one too. Their loopback ports
  // stay, for health checks, and believe no one's X-Forwarded-For.
  const sockets = socketFolder();
  const children = new Map();
  let stopping = false;
  const stopAll = (code) => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping services...');
    for (const child of children.values()) child.kill('SIGTERM');
    const force = setTimeout(() => {
      for (const child of children.values()) child.kill('SIGKILL');
    }, 30_000);
    force.unref();
    const finish = async () => {
      sockets.remove();
      if (!keepInfra) {
        try {
          await down({ only: started });
        } catch (error) {
          console.error(error instanceof Error ? error.message : String(error));
        }
      }
      process.exit(code);
    };
    const wait = () => (children.size === 0 ? void finish() : setTimeout(wait, 100));
    wait();
  };
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));

  const width = Math.max(...services.map((service) => service.name.length));
  // In the list's order, each after those it calls; none waits for another's start-up (a
  // call that finds no one is retried).
  for (const service of services) {
    const { name } = service;
    const entry = path.join(root, 'services', name, service.entry);
    const child = spawn(process.execPath, [...nodeArgs(name), entry], {
      cwd: root,
      env: {
        ...env,
        ...internalUrls,
        INTERNAL_API_SECRET: internalSecret,
        NODE_OPTIONS: nodeOptions(name),
        // Where browsers reach the gateway (sign-in callbacks, cookies); GOOGLE_* pass as given.
        PUBLIC_ORIGIN: env.PUBLIC_ORIGIN ?? `http://localhost:${publicPort}`,
        LOCAL_SIGN_IN: String(signIn.kind === 'local'),
        // Proxies the operator puts in front of the stack, for the gateway; none by default:
        // loopback here would let any local program name any address. The edge's sockets
        // are believed instead.
        TRUSTED_PROXIES: service.public ? (env.TRUSTED_PROXIES ?? '') : '',
        PORT: String(ports[name]),
        // Only the edge faces the network (nginx, or else the gateway); the rest listen on
        // loopback.
        HOST: service.public && nginx === null ? publicHost : '127.0.0.1',
        // /readyz and /metrics answer loopback callers on each service's port; OPS_PORT, if
        // given, moves the public service's to that port (one port cannot serve five processes).
        OPS_PORT: service.public ? (env.OPS_PORT ?? '') : '',
        ...(name === 'redirect'
          ? {
              UNIX_SOCKET: sockets.redirect,
              // Visits wait here too, so a crashed redirect's reach Kafka at its next start.
              VISIT_SPOOL_DIR: env.VISIT_SPOOL_DIR ?? path.join(root, '.data', 'visit-spool'),
            }
          : {}),
        ...(service.public
          ? {
              REDIRECT_SOCKET: sockets.redirect,
              ...(nginx === null ? {} : { UNIX_SOCKET: sockets.gateway }),
            }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prefixOutput(child, name, width);
    children.set(name, child);
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (!stopping) {
        console.error(`${name} exited (${signal ?? code}); stopping the stack.`);
        stopAll(1);
      }
    });
  }
  const signInLine = `Sign-in: ${signIn.why}.`;
  if (nginx === null) {
    console.log(
      `Stack starting: http://localhost:${publicPort}, the gateway as the edge ` +
        `(${process.argv.includes('--no-edge') ? '--no-edge' : 'no nginx found; Debian: apt-get install nginx'}). Ctrl-C stops it.\n${signInLine}`,
    );
    return;
  }
  // The edge, as the Ingress: /r/ to the redirect service, the rest to the gateway, both on
  // their sockets; until they listen, it answers 502.
  try {
    const edge = await startEdge({
      port: publicPort,
      host: publicHost,
      redirect: `unix:${sockets.redirect}`,
      gateway: `unix:${sockets.gateway}`,
      nginx,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prefixOutput(edge.child, 'edge', width);
    children.set('edge', edge.child);
    edge.child.on('exit', (code, signal) => {
      children.delete('edge');
      if (!stopping) {
        console.error(`edge exited (${signal ?? code}); stopping the stack.`);
        stopAll(1);
      }
    });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    stopAll(1);
    return;
  }
  console.log(
    `Stack starting: http://localhost:${publicPort} (nginx as the edge: /r/ to the redirect ` +
      `service, the rest to the gateway, each on its Unix socket). Ctrl-C stops it.\n${signInLine}`,
  );
}

await main();
