import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, REPO_ROOT, waitFor } from '@shortener/testkit';

// The embedded mode started as a newcomer starts it (`node services/embedded/dist/main.js`),
// for the embedded suites.

const ENTRY = path.join(REPO_ROOT, 'services', 'embedded', 'dist', 'main.js');

export interface Embedded {
  child: ChildProcess;
  url: string;
  port: number;
  output(): string;
  exited: Promise<number | null>;
}

/** The environment of a laptop with nothing configured: no servers, no Google. */
function laptopEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(DATABASE_URL|REDIS_URL|KAFKA_BROKERS|GOOGLE_|INTERNAL_API_SECRET|NODE_ENV|HOST$|LOCAL_SIGN_IN)/.test(
        name,
      )
    ) {
      delete env[name];
    }
  }
  return { ...env, LOG_LEVEL: 'warn', SHORTEN_RATE_LIMIT_ANONYMOUS: '1000', ...extra };
}

/** Starts the process without waiting; PORT in `extra` is the public port. */
export function launch(extra: NodeJS.ProcessEnv & { PORT: string }): Embedded {
  const child = spawn(process.execPath, [ENTRY], {
    env: laptopEnv(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    url: `http://localhost:${extra.PORT}`,
    port: Number(extra.PORT),
    output: () => output,
    exited,
  };
}

/** Resolves once the start-up line is printed; fails if the process exits first. */
export async function running(app: Embedded): Promise<Embedded> {
  await waitFor(
    () => {
      if (app.child.exitCode !== null) throw new Error(`exited: ${app.output()}`);
      return app.output().includes('is running at');
    },
    { timeoutMs: 60_000, what: 'the embedded mode to start' },
  );
  return app;
}

export async function start(dataDir: string, extra: NodeJS.ProcessEnv = {}): Promise<Embedded> {
  return running(launch({ PORT: String(await freePort()), DATA_DIR: dataDir, ...extra }));
}

/**
 * The data folder a first start leaves, made once for this build's migrations and PGlite
 * and kept in the system's temporary folder: a first start creates the embedded PostgreSQL
 * and migrates it, several seconds of CPU that a test about anything else need not pay again.
 */
async function firstStartFolder(): Promise<string> {
  const hash = createHash('sha256');
  hash.update(
    readFileSync(path.join(REPO_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')),
  );
  for (const service of ['auth', 'links', 'analytics']) {
    const folder = path.join(REPO_ROOT, 'services', service, 'dist', 'migrations');
    for (const file of readdirSync(folder)
      .filter((name) => name.endsWith('.js'))
      .sort()) {
      hash.update(file).update(readFileSync(path.join(folder, file)));
    }
  }
  const template = path.join(tmpdir(), `shortener-embedded-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(template)) return template;
  const building = mkdtempSync(path.join(tmpdir(), 'shortener-embedded-building-'));
  try {
    const app = await start(path.join(building, 'data'));
    if ((await stop(app)) !== 0)
      throw new Error(`the first start did not stop cleanly: ${app.output()}`);
    // Another run may have made it meanwhile: either folder is as good.
    if (!existsSync(template)) renameSync(path.join(building, 'data'), template);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * Starts on a copy of a first start's data folder (the folder at `dataDir` is made, or
 * filled if empty): for tests that need a running embedded mode but do not test its first
 * start, which start() on a new folder does.
 */
export async function startCopied(
  dataDir: string,
  extra: NodeJS.ProcessEnv = {},
): Promise<Embedded> {
  cpSync(await firstStartFolder(), dataDir, { recursive: true });
  return start(dataDir, extra);
}

/**
 * How a start that should be refused ends: the exit code, or 'running' (then stopped) when it
 * started after all, so a test of a refusal fails instead of waiting for ever.
 */
export async function startOutcome(app: Embedded): Promise<number | null | 'running'> {
  const deadline = Date.now() + 60_000;
  const ended = (): boolean => app.child.exitCode !== null || app.child.signalCode !== null;
  while (!ended() && !app.output().includes('is running at') && Date.now() < deadline) {
    await sleep(100);
  }
  if (!ended()) {
    await stop(app);
    return 'running';
  }
  return app.exited;
}

export async function stop(app: Embedded): Promise<number | null> {
  if (app.child.exitCode === null) app.child.kill('SIGTERM');
  return app.exited;
}

/** Cookies as a browser keeps them, enough for one session. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set(
        'cookie',
        [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      );
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/** Posts the local sign-in form as a browser on `origin` would. */
export async function postLocalSignIn(
  browser: Browser,
  origin: string,
  name: string,
): Promise<Response> {
  return browser.fetch(`${origin}/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ name, from: '/profile' }).toString(),
  });
}

export async function signInLocally(app: Embedded, name: string): Promise<Browser> {
  const browser = new Browser();
  const form = await browser.fetch(`${app.url}/login?from=/profile`);
  expect(form.status).toBe(200);
  expect(await form.text()).toContain('Local sign-in (not Google)');
  const signedIn = await postLocalSignIn(browser, app.url, name);
  expect(signedIn.status).toBe(302);
  expect(signedIn.headers.get('location')).toBe('/profile');
  expect(browser.cookie('loggedIn')).toBe('true');
  return browser;
}

/**
 * Runs `scenario`, the body of an async JavaScript function of `Pool` (the module the
 * services' data sources are given, over the embedded database of `dataDir` opened as the
 * embedded mode opens it), in a Node process of its own: PGlite loads its WebAssembly with
 * import(), which Jest's module system does not offer. Resolves with what it returns.
 */
export async function onEmbeddedDatabase(dataDir: string, scenario: string): Promise<unknown> {
  const dist = path.join(REPO_ROOT, 'services', 'embedded', 'dist');
  const program = `
    const { startEmbeddedPostgres } = require(${JSON.stringify(path.join(dist, 'embedded-postgres.js'))});
    const { inProcessDriver } = require('@shortener/chassis-postgres');
    (async () => {
      const database = await startEmbeddedPostgres(process.argv[1]);
      try {
        const { Pool } = inProcessDriver(database.url);
        const result = await (async (Pool) => { ${scenario} })(Pool);
        process.stdout.write(JSON.stringify(result ?? null));
      } finally {
        await database.stop();
      }
    })().catch((error) => { process.stderr.write(String(error && error.stack)); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', program, dataDir], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the scenario failed (${code}): ${errors}`);
  return JSON.parse(output) as unknown;
}
