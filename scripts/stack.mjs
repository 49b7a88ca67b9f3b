// `npm run stack`: the distributed stack on one machine. Brings up PostgreSQL, Redis and
// Kafka (infra/infra.mjs), then runs each service as its own process, logs prefixed by
// service. Ctrl-C stops the services, then the servers this run started (not ones that
// were already running); `npm run stack -- --keep-infra` leaves those up for the next run.
// Configuration comes from the environment.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { down, up } from '../infra/infra.mjs';
import { buildProduct } from './lib/build.mjs';
import { prefixOutput } from './lib/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const keepInfra = process.argv.includes('--keep-infra');

// The services, their ports and how they find each other: services/services.json, in start
// order. A port is moved by <NAME>_PORT (AUTH_PORT...), the public service's by PORT.
const { services } = JSON.parse(readFileSync(path.join(root, 'services', 'services.json'), 'utf8'));
const portOf = (service) =>
  Number((service.public ? env.PORT : env[`${service.name.toUpperCase()}_PORT`]) ?? service.port);
const ports = Object.fromEntries(services.map((service) => [service.name, portOf(service)]));
const publicPort = ports[services.find((service) => service.public).name];
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

async function main() {
  // What the stack serves, as `npm start` builds it: the services and, if missing, the web app.
  console.log('Building...');
  if (!(await buildProduct(root))) {
    console.error('The build failed; see the errors above.');
    process.exit(1);
  }
  let started;
  try {
    started = await up();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }

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
        // The gateway forwards /r/ to the redirect service from loopback.
        TRUSTED_PROXIES: env.TRUSTED_PROXIES ?? '127.0.0.1,::1',
        PORT: String(ports[name]),
        // Only the public service (the gateway) faces the network; the others listen on loopback.
        HOST: service.public ? (env.HOST ?? '0.0.0.0') : '127.0.0.1',
        // /readyz and /metrics answer loopback callers on each service's port; OPS_PORT, if
        // given, moves the public service's to that port (one port cannot serve five processes).
        OPS_PORT: service.public ? (env.OPS_PORT ?? '') : '',
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
  console.log(`Stack starting: http://localhost:${publicPort} (Ctrl-C stops it)`);
}

await main();
