import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { InternalClient } from '@shortener/chassis';
import { internalApi, REQUESTED_WITH_HEADER } from '@shortener/contracts';
import {
  childProcesses,
  connectAsNobody,
  freePort,
  listeningUnixSockets,
  REPO_ROOT,
  testServers,
  waitFor,
} from '@shortener/testkit';
import { Browser, postLocalSignIn } from '../integration/embedded-app';

// `npm run stack` as people run it (scripts/stack.mjs), on the test servers and ports of its
// own: who may name a visitor's address (only the edge, on sockets no other local user can
// open), and when the password-less local sign-in may be on (on loopback only).

const STACK = path.join(REPO_ROOT, 'scripts', 'stack.mjs');
const LIMIT = 3;

interface RunningStack {
  child: ChildProcess;
  url: string;
  ports: Record<'gateway' | 'redirect', number>;
  analytics: InternalClient;
  links: InternalClient;
  /** The /readyz of the services the tests call directly. */
  readiness: string[];
  output(): string;
  exited: Promise<number | null>;
}

/**
 * A Redis index of these stacks' own: their gateways count every client as 127.0.0.1 (they
 * believe no X-Forwarded-For), so in the suites' shared index the sign-ins and shortens of
 * other tests from this machine would spend their rate limits. Emptied before they start.
 */
const STACK_REDIS_URL = (() => {
  const url = new URL(testServers.redisUrl);
  url.pathname = '/2';
  return url.toString();
})();

/** The environment of a laptop with nothing of ours set, plus `extra`. */
function stackEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(GOOGLE_|LOCAL_SIGN_IN|HOST$|TRUSTED_PROXIES|NODE_ENV|NODE_OPTIONS)/.test(name)) {
      delete env[name];
    }
  }
  return { ...env, ...extra };
}

/** Starts scripts/stack.mjs; resolves once it prints its start-up line, or exits. */
async function launch(extra: NodeJS.ProcessEnv, args: string[] = []): Promise<RunningStack> {
  const port = await freePort();
  const ports = {
    AUTH_PORT: await freePort(),
    LINKS_PORT: await freePort(),
    ANALYTICS_PORT: await freePort(),
    REDIRECT_PORT: await freePort(),
    GATEWAY_PORT: await freePort(),
  };
  const secret = randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, [STACK, '--keep-infra', ...args], {
    cwd: REPO_ROOT,
    env: stackEnv({
      PORT: String(port),
      ...Object.fromEntries(Object.entries(ports).map(([name, value]) => [name, String(value)])),
      DATABASE_URL: testServers.databaseUrl,
      REDIS_URL: STACK_REDIS_URL,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      // A group of its own: another stack's analytics never takes these visits.
      KAFKA_CONSUMER_GROUP: `analytics-stack-test-${randomBytes(4).toString('hex')}`,
      INTERNAL_API_SECRET: secret,
      // As the tests reach it (the local sign-in's form is same-origin only).
      PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      SHORTEN_RATE_LIMIT_ANONYMOUS: String(LIMIT),
      ...extra,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  await waitFor(() => child.exitCode !== null || output.includes('Stack starting'), {
    timeoutMs: 120_000,
    what: 'the stack to start',
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    ports: {
      gateway: args.includes('--no-edge') ? port : ports.GATEWAY_PORT,
      redirect: ports.REDIRECT_PORT,
    },
    analytics: new InternalClient('analytics', `http://127.0.0.1:${ports.ANALYTICS_PORT}`, secret),
    links: new InternalClient('links', `http://127.0.0.1:${ports.LINKS_PORT}`, secret),
    readiness: [ports.LINKS_PORT, ports.ANALYTICS_PORT].map(
      (servicePort) => `http://127.0.0.1:${servicePort}/readyz`,
    ),
    output: () => output,
    exited,
  };
}

/** Waits until the stack redirects and shortens through its public port. */
async function serving(stack: RunningStack): Promise<void> {
  await waitFor(
    async () => {
      if (stack.child.exitCode !== null) throw new Error(`the stack exited:\n${stack.output()}`);
      const unknown = await fetch(`${stack.url}/r/zzzzzzz`).catch(() => undefined);
      const ready = await Promise.all(
        stack.readiness.map((url) =>
          fetch(url).then(
            (answer) => answer.ok,
            () => false,
          ),
        ),
      );
      return unknown?.status === 404 && ready.every(Boolean);
    },
    { timeoutMs: 120_000, what: 'the stack to serve' },
  );
}

async function stop(stack: RunningStack | undefined): Promise<void> {
  if (!stack || stack.child.exitCode !== null) return;
  stack.child.kill('SIGTERM');
  await stack.exited;
}

/** A link to `url`, made on the links service (out of the way of the rate limits under test). */
async function linkTo(stack: RunningStack, url: string): Promise<string> {
  const created = await stack.links.call(internalApi.createLink, {
    identity: { userId: 'stack-test' },
    body: { url, days: 1 },
  });
  if (created.status !== 201) throw new Error(`not created: ${created.body.message}`);
  return created.body.urlID;
}

/** The addresses `count` visits of `code` were recorded at, once they are stored. */
function visitorAddresses(stack: RunningStack, code: string, count: number): Promise<string[]> {
  return waitFor(
    async () => {
      const page = await stack.analytics.call(internalApi.visitsPage, { params: { code } });
      return page.status === 200 && page.body.visits.length >= count
        ? page.body.visits.map((visit) => visit.ipAddress)
        : undefined;
    },
    { what: `${count} visit(s) of ${code} stored`, timeoutMs: 30_000 },
  );
}

/** The Unix sockets the stack's `service` process listens on. */
function socketsOf(stack: RunningStack, service: string): string[] {
  const entry = path.join('services', service, 'dist', 'main.js');
  const process = childProcesses(stack.child.pid ?? 0).find(({ command }) =>
    command.includes(entry),
  );
  if (!process) throw new Error(`no ${service} process under the stack`);
  return listeningUnixSockets(process.pid);
}

/** Anonymous shortens on `origin` naming a new address each: the statuses answered. */
async function shortensNamingOthers(origin: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i <= LIMIT; i += 1) {
    const url = `https://example.com/named-${randomBytes(4).toString('hex')}`;
    const answer = await fetch(`${origin}/api/shorten/?url=${encodeURIComponent(url)}`, {
      method: 'POST',
      headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest', 'x-forwarded-for': `203.0.113.${i}` },
    });
    statuses.push(answer.status);
  }
  return statuses;
}

/** Visits `code` on each of `origins`, naming 203.0.113.99 as the visitor. */
async function visitNamingOthers(code: string, origins: string[]): Promise<void> {
  for (const origin of origins) {
    const answer = await fetch(`${origin}/r/${code}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': '203.0.113.99' },
    });
    expect([origin, answer.status]).toEqual([origin, 302]);
  }
}

function expectPrivateSocket(socket: string): void {
  expect(statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
  expect(statSync(socket).mode & 0o777).toBe(0o600);
  expect(connectAsNobody(socket)).toBe('EACCES');
}

describe('npm run stack', () => {
  beforeAll(async () => {
    const redis = new Redis(STACK_REDIS_URL);
    await redis.flushdb();
    await redis.quit();
  });

  it('refuses LOCAL_SIGN_IN=true when it would listen beyond loopback, before starting anything', async () => {
    const stack = await launch({ LOCAL_SIGN_IN: 'true' });
    const started = stack.output().includes('Stack starting');
    await stop(stack);
    expect(started).toBe(false);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toContain(
      'LOCAL_SIGN_IN=true is refused: the stack listens on 0.0.0.0, beyond this machine',
    );
    expect(stack.output()).not.toContain('Stack starting');
  }, 120_000);

  describe('behind nginx, on loopback, with the local sign-in', () => {
    let stack: RunningStack | undefined;

    beforeAll(async () => {
      stack = await launch({ HOST: '127.0.0.1', LOCAL_SIGN_IN: 'true' });
      await serving(stack);
    }, 240_000);
    afterAll(() => stop(stack));

    it('says the local sign-in is on, and signs in through the edge', async () => {
      const { url, output } = stack!;
      expect(output()).toContain(
        'Sign-in: local (no password), because LOCAL_SIGN_IN=true and the stack listens on loopback only.',
      );
      const browser = new Browser();
      expect(await (await browser.fetch(`${url}/login?from=/profile`)).text()).toContain(
        'Local sign-in (not Google)',
      );
      expect((await postLocalSignIn(browser, url, 'Stack User')).status).toBe(302);
      expect(browser.cookie('loggedIn')).toBe('true');
    });

    it('records the address the edge saw, not one the visitor or a local program names', async () => {
      const running = stack!;
      const code = await linkTo(running, 'https://example.com/stack-visitor');
      await visitNamingOthers(code, [
        running.url,
        `http://127.0.0.1:${running.ports.gateway}`,
        `http://127.0.0.1:${running.ports.redirect}`,
      ]);
      expect(await visitorAddresses(running, code, 3)).toEqual([
        '127.0.0.1',
        '127.0.0.1',
        '127.0.0.1',
      ]);
    });

    it('counts a local program’s shortens on the gateway’s own port against its own address', async () => {
      const statuses = await shortensNamingOthers(`http://127.0.0.1:${stack!.ports.gateway}`);
      expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(LIMIT);
      expect(statuses.at(-1)).toBe(403);
    });

    it('lets no other local user open the sockets where the edge reaches the services', () => {
      const sockets = [...socketsOf(stack!, 'redirect'), ...socketsOf(stack!, 'gateway')];
      expect(sockets.map((socket) => path.basename(socket))).toEqual([
        'redirect.sock',
        'gateway.sock',
      ]);
      for (const socket of sockets) expectPrivateSocket(socket);
    });
  });

  describe('with the gateway as the edge (--no-edge)', () => {
    let stack: RunningStack | undefined;

    beforeAll(async () => {
      stack = await launch({ HOST: '127.0.0.1' }, ['--no-edge']);
      await serving(stack);
    }, 240_000);
    afterAll(() => stop(stack));

    it('believes no X-Forwarded-For: limits count the caller, visits are recorded where it is', async () => {
      const running = stack!;
      const statuses = await shortensNamingOthers(running.url);
      expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(LIMIT);
      expect(statuses.at(-1)).toBe(403);

      const code = await linkTo(running, 'https://example.com/no-edge-visitor');
      await visitNamingOthers(code, [running.url, `http://127.0.0.1:${running.ports.redirect}`]);
      expect(await visitorAddresses(running, code, 2)).toEqual(['127.0.0.1', '127.0.0.1']);
      const [socket = ''] = socketsOf(running, 'redirect');
      expectPrivateSocket(socket);
    });

    it('says sign-in is Google only, and not configured', () => {
      expect(stack!.output()).toContain('Sign-in: none, because Google sign-in is not configured');
    });
  });
});
