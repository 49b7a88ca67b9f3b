import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect, isIPv4 } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  connectAsNobody,
  freePort,
  listeningPorts,
  listeningUnixSockets,
  waitFor,
} from '@shortener/testkit';
import {
  Browser,
  launch,
  postLocalSignIn,
  signInLocally,
  start,
  startCopied,
  startOutcome,
  stop,
  type Embedded,
} from './embedded-app';

// `npm start` on a laptop in a shared network and on a shared machine: strangers on the
// network cannot reach it or sign in as someone, and other local users cannot use its
// database or read its data.

/** This machine's addresses other machines could use (not loopback, not link-local). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((address) => !address.internal && !address.address.startsWith('fe80:'))
    .map((address) => address.address);
}

/** 'open' when a TCP connection to host:port is accepted, else the error code. */
function tcpProbe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Connects to a PostgreSQL port as postgres and runs a query: 'ok' or the refusal. */
async function signInToPostgres(port: number, password?: string): Promise<string> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 3000,
    ...(password === undefined ? {} : { password }),
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'ok';
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Every folder and file under `root`, with its permission bits. */
function modes(root: string): Array<{ file: string; mode: number; folder: boolean }> {
  const found: Array<{ file: string; mode: number; folder: boolean }> = [];
  const walk = (at: string): void => {
    const stat = statSync(at);
    found.push({ file: at, mode: stat.mode & 0o777, folder: stat.isDirectory() });
    if (stat.isDirectory()) for (const name of readdirSync(at)) walk(path.join(at, name));
  };
  walk(root);
  return found;
}

/** Shortens `url` for a week as the signed-in `owner`; its code. */
async function shortenAs(owner: Browser, app: Embedded, url: string): Promise<string> {
  const created = await owner.fetch(`${app.url}/api/shorten/?url=${encodeURIComponent(url)}`, {
    method: 'POST',
    headers: { 'x-requested-with': 'XMLHttpRequest' },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { url: string }).url;
}

/** The addresses the visits of `code` were recorded at, once there is one at least. */
function visitorAddresses(owner: Browser, app: Embedded, code: string): Promise<string[]> {
  return waitFor(
    async () => {
      const page = await owner.fetch(`${app.url}/api/visitors/${code}`, {
        headers: { 'x-requested-with': 'XMLHttpRequest' },
      });
      if (page.status !== 200) return undefined;
      return ((await page.json()) as Array<{ ipAddress: string }>).map((visit) => visit.ipAddress);
    },
    { what: `a visit of ${code} stored`, timeoutMs: 20_000 },
  );
}

describe('embedded mode, security', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'embedded-security-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  describe('started with nothing set', () => {
    const dataDir = path.join(scratch, 'laptop');
    let app: Embedded;

    beforeAll(async () => {
      // A folder as an earlier version left it: readable by everyone.
      mkdirSync(dataDir);
      chmodSync(dataDir, 0o755);
      app = await start(dataDir);
    }, 90_000);
    afterAll(async () => {
      if (app) await stop(app);
    });

    it('answers on 127.0.0.1 and ::1 and not on any other address of this machine', async () => {
      const external = externalAddresses();
      if (external.length === 0) {
        // Nothing to connect from: what it bound to is all there is to check.
        console.warn('this machine has no non-loopback address; checked the start-up line only');
      }
      for (const address of external) {
        expect([address, await tcpProbe(address, app.port)]).toEqual([address, 'ECONNREFUSED']);
      }
      expect(app.output()).toContain('(on 127.0.0.1 and ::1;');
      expect(await tcpProbe('127.0.0.1', app.port)).toBe('open');
      expect(await tcpProbe('::1', app.port)).toBe('open');
      expect((await fetch(`http://127.0.0.1:${app.port}/`)).status).toBe(200);
      expect((await fetch(`http://[::1]:${app.port}/`)).status).toBe(200);
    });

    it('offers the local sign-in and says it is because it listens on loopback only', async () => {
      expect(app.output()).toContain(
        'Sign-in: local (no password), because it listens on loopback only.',
      );
      await signInLocally(app, 'Loopback User');
    });

    it('keeps its database to itself: no port of the process lets anyone in as postgres', async () => {
      const ports = listeningPorts(app.child.pid ?? 0);
      expect(ports).toContain(app.port);
      // PGlite runs in the process and listens nowhere: every port is one of the services'.
      for (const port of ports) {
        expect([port, await signInToPostgres(port)]).not.toEqual([port, 'ok']);
        expect([port, await signInToPostgres(port, 'postgres')]).not.toEqual([port, 'ok']);
        const answer = await fetch(`http://127.0.0.1:${port}/healthz`);
        expect([port, answer.status]).toEqual([port, 200]);
      }
    });

    it('keeps its data folder private: 0700, and no file readable or writable by others', () => {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(dataDir, 'postgres')).mode & 0o777).toBe(0o700);
      const open = modes(dataDir).filter(({ mode }) => (mode & 0o077) !== 0);
      expect(open.map(({ file, mode }) => `${mode.toString(8)} ${file}`)).toEqual([]);
    });
  });

  describe('started with HOST=0.0.0.0', () => {
    it('without Google, signs nobody in and says how to allow the local sign-in', async () => {
      const app = await startCopied(path.join(scratch, 'lan'), { HOST: '0.0.0.0' });
      try {
        expect(app.output()).toContain(
          'Sign-in: none, because Google sign-in is not configured and HOST=0.0.0.0 is not ' +
            'loopback; set LOCAL_SIGN_IN=true to allow anyone who can reach this port to sign ' +
            'in as anyone.',
        );
        // 0.0.0.0 is every IPv4 address (and no IPv6 one).
        for (const address of externalAddresses().filter((address) => isIPv4(address))) {
          expect([address, await tcpProbe(address, app.port)]).toEqual([address, 'open']);
        }
        const login = await fetch(`${app.url}/login?from=/profile`);
        const page = await login.text();
        expect(page).not.toContain('Local sign-in (not Google)');
        expect(page).toContain('Google sign-in is not configured');
        const browser = new Browser();
        const signIn = await postLocalSignIn(browser, app.url, 'alice');
        expect(signIn.status).toBe(404);
        expect(browser.cookie('session')).toBeUndefined();
        expect(browser.cookie('loggedIn')).toBeUndefined();
      } finally {
        await stop(app);
      }
    });

    it('with LOCAL_SIGN_IN=true, offers the local sign-in and warns who can use it', async () => {
      const app = await startCopied(path.join(scratch, 'lan-local'), {
        HOST: '0.0.0.0',
        LOCAL_SIGN_IN: 'true',
      });
      try {
        expect(app.output()).toContain(
          'Sign-in: local (no password), because LOCAL_SIGN_IN=true; anyone who can reach ' +
            'this port can sign in as anyone.',
        );
        await signInLocally(app, 'Asked For It');
      } finally {
        await stop(app);
      }
    });
  });

  describe('a local client naming another address in X-Forwarded-For', () => {
    // The gateway is the edge: a header only a proxy of the operator's would be believed.
    const LIMIT = 3;
    let app: Embedded;
    let owner: Browser;
    let n = 0;
    const forged = (): Record<string, string> => ({ 'x-forwarded-for': `203.0.113.${++n}` });

    beforeAll(async () => {
      app = await startCopied(path.join(scratch, 'forged'), {
        SHORTEN_RATE_LIMIT_ANONYMOUS: String(LIMIT),
        SIGN_IN_RATE_LIMIT: String(LIMIT + 2),
        REDIRECT_MISS_BUDGET: String(LIMIT),
        REDIRECT_MISS_BURST: String(LIMIT),
      });
      owner = await signInLocally(app, 'Link Owner');
    }, 90_000);
    afterAll(async () => {
      if (app) await stop(app);
    });

    it('shortens anonymously no more often than the limit', async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i += 1) {
        const url = `https://example.com/forged-${i}`;
        const answer = await fetch(`${app.url}/api/shorten/?url=${encodeURIComponent(url)}`, {
          method: 'POST',
          headers: { 'x-requested-with': 'XMLHttpRequest', ...forged() },
        });
        statuses.push(answer.status);
      }
      expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(LIMIT);
      expect(statuses.at(-1)).toBe(403);
    });

    it('signs in no more often than the limit', async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT + 2; i += 1) {
        statuses.push((await fetch(`${app.url}/login`, { headers: forged() })).status);
      }
      expect(statuses.at(-1)).toBe(429);
    });

    it('spends its own /r/ miss budget', async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= LIMIT; i += 1) {
        statuses.push((await fetch(`${app.url}/r/zzzzz${i}z`, { headers: forged() })).status);
      }
      expect(statuses.at(-1)).toBe(429);
    });

    it('is recorded at its own address, through the gateway', async () => {
      const code = await shortenAs(owner, app, 'https://example.com/recorded-address');
      const visit = await fetch(`http://127.0.0.1:${app.port}/r/${code}`, {
        redirect: 'manual',
        headers: { 'x-forwarded-for': '8.8.8.8' },
      });
      expect(visit.status).toBe(302);
      expect(await visitorAddresses(owner, app, code)).toEqual(['127.0.0.1']);
    });

    it('cannot name an address on the redirect service’s own port or socket either', async () => {
      const code = await shortenAs(owner, app, 'https://example.com/straight-to-the-redirect');
      // Every other port of the process: the internal services, the redirect among them.
      const internal = listeningPorts(app.child.pid ?? 0).filter((port) => port !== app.port);
      expect(internal.length).toBeGreaterThanOrEqual(4);
      for (const port of internal) {
        await fetch(`http://127.0.0.1:${port}/r/${code}`, {
          redirect: 'manual',
          headers: { 'x-forwarded-for': '8.8.4.4' },
        }).catch(() => undefined);
      }
      // One visit through the gateway marks the point by which those would have been stored.
      await fetch(`http://127.0.0.1:${app.port}/r/${code}`, { redirect: 'manual' });
      const addresses = await visitorAddresses(owner, app, code);
      expect(addresses).not.toContain('8.8.4.4');
      // The gateway reaches the redirect service on a socket only this user can open (the
      // database has no socket of its own: PGlite runs in the process).
      const sockets = listeningUnixSockets(app.child.pid ?? 0);
      expect(sockets.length).toBeGreaterThanOrEqual(1);
      for (const socket of sockets) {
        expect([socket, statSync(path.dirname(socket)).mode & 0o777]).toEqual([socket, 0o700]);
        expect([socket, statSync(socket).mode & 0o077]).toEqual([socket, 0]);
        expect([socket, connectAsNobody(socket)]).toEqual([socket, 'EACCES']);
      }
    });
  });

  describe('local clients on different loopback addresses', () => {
    // Any program here may bind any of 127.0.0.0/8: were each address a client of its own,
    // every per-client budget would be endless for it.
    const LIMIT = 3;
    let app: Embedded;

    /** A request from the given local address (Linux routes all of 127/8 to loopback). */
    function from(localAddress: string, target: string, method = 'GET'): Promise<number> {
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: app.port,
            path: target,
            method,
            localAddress,
            headers: { 'x-requested-with': 'XMLHttpRequest' },
          },
          (res) => {
            res.resume();
            res.once('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.once('error', reject);
        req.end();
      });
    }

    beforeAll(async () => {
      app = await startCopied(path.join(scratch, 'loopback'), {
        SHORTEN_RATE_LIMIT_ANONYMOUS: String(LIMIT),
        SIGN_IN_RATE_LIMIT: String(LIMIT),
        REDIRECT_MISS_BUDGET: String(LIMIT),
        REDIRECT_MISS_BURST: String(LIMIT),
      });
    }, 90_000);
    afterAll(async () => {
      if (app) await stop(app);
    });

    it('share one budget: anonymous shortening, sign-in and the /r/ miss budget', async () => {
      const shorten = (n: number): string =>
        `/api/shorten/?url=${encodeURIComponent(`https://example.com/loopback-${n}`)}`;
      for (let n = 0; n < LIMIT; n += 1) {
        expect(await from('127.0.0.2', shorten(n), 'POST')).toBe(201);
      }
      expect(await from('127.0.0.3', shorten(LIMIT), 'POST')).toBe(403);

      for (let n = 0; n < LIMIT; n += 1) expect(await from('127.0.0.2', '/login')).not.toBe(429);
      expect(await from('127.0.0.3', '/login')).toBe(429);

      for (let n = 0; n < LIMIT; n += 1) {
        expect(await from('127.0.0.2', `/r/zzzzz${n}z`)).toBe(404);
      }
      expect(await from('127.0.0.3', `/r/zzzzz${LIMIT}z`)).toBe(429);
    });
  });

  it('believes X-Forwarded-For from the proxies TRUSTED_PROXIES names, when its operator sets it', async () => {
    const app = await startCopied(path.join(scratch, 'behind-a-proxy'), {
      TRUSTED_PROXIES: 'loopback',
    });
    try {
      const owner = await signInLocally(app, 'Proxied Owner');
      const code = await shortenAs(owner, app, 'https://example.com/proxied');
      await fetch(`http://127.0.0.1:${app.port}/r/${code}`, {
        redirect: 'manual',
        headers: { 'x-forwarded-for': '198.51.100.7' },
      });
      expect(await visitorAddresses(owner, app, code)).toEqual(['198.51.100.7']);
    } finally {
      await stop(app);
    }
  });

  it.each([
    [
      { NODE_ENV: 'Production', LOCAL_SIGN_IN: 'true' },
      'LOCAL_SIGN_IN=true is refused when NODE_ENV=Production',
    ],
    [
      { NODE_ENV: 'prod', LOCAL_SIGN_IN: 'true' },
      'LOCAL_SIGN_IN=true is refused when NODE_ENV=prod',
    ],
    [{ NODE_ENV: 'PRODUCTION' }, 'NODE_ENV=PRODUCTION needs Google sign-in'],
    [{ NODE_ENV: 'prod', HOST: '0.0.0.0' }, 'NODE_ENV=prod needs Google sign-in'],
  ])('refuses to start with %j, saying why', async (extra, message) => {
    const app = launch({
      PORT: String(await freePort()),
      DATA_DIR: path.join(scratch, 'production'),
      ...extra,
    });
    expect(await startOutcome(app)).toBe(1);
    expect(app.output()).toContain(message);
    expect(app.output()).not.toContain('    at ');
  });
});
