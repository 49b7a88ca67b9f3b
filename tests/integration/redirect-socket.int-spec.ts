import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import {
  connectAsNobody,
  freePort,
  startServiceProcess,
  startStack,
  waitFor,
  type ServiceProcess,
  type Stack,
} from '@shortener/testkit';

// The redirect service's Unix socket (UNIX_SOCKET), where an edge on the same machine reaches
// it without TCP (npm run stack's nginx): /r/ only, the edge's X-Forwarded-For believed, so
// only its user may connect; the TCP port as before; a socket left by a killed instance is
// taken back, a live one is not.

interface Answer {
  status: number;
  location: string | undefined;
  text: string;
}

/** A GET on the Unix socket at `socketPath`. */
function viaSocket(
  socketPath: string,
  page: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: page, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the redirect service on a Unix socket', () => {
  let folder: string;
  let socket: string;
  let stack: Stack;
  let links: InternalClient;
  let analytics: InternalClient;

  async function create(url: string): Promise<string> {
    const response = await links.call(internalApi.createLink, {
      identity: { userId: 'redirect-socket' },
      body: { url, days: 1 },
    });
    if (response.status !== 201) throw new Error(`not created: ${response.body.message}`);
    return response.body.urlID;
  }

  async function storedAddresses(code: string, count: number): Promise<string[]> {
    const page = await waitFor(
      async () => {
        const visits = await analytics.call(internalApi.visitsPage, { params: { code } });
        return visits.status === 200 && visits.body.visits.length >= count
          ? visits.body
          : undefined;
      },
      { what: `${count} visit(s) of ${code} stored`, timeoutMs: 20_000 },
    );
    return page.visits.map((visit) => visit.ipAddress);
  }

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'redirect-socket-'));
    socket = path.join(folder, 'redirect.sock');
    stack = await startStack({
      services: ['analytics', 'links', 'redirect'],
      // No proxy trusted on the port: only the socket's X-Forwarded-For counts.
      serviceEnv: { redirect: { UNIX_SOCKET: socket, TRUSTED_PROXIES: '' } },
    });
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
    await waitFor(async () => (await fetch(`${stack.get('redirect').url}/readyz`)).ok, {
      what: 'redirect ready',
      timeoutMs: 30_000,
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('redirects there, recording the address the edge names; its port believes no one', async () => {
    const code = await create('https://example.com/over-the-socket');
    const answer = await viaSocket(socket, `/r/${code}`, {
      'x-forwarded-for': '203.0.113.9',
      'user-agent': 'SocketTest/1.0',
    });
    expect(answer.status).toBe(302);
    expect(answer.location).toBe('https://example.com/over-the-socket');
    expect(await storedAddresses(code, 1)).toEqual(['203.0.113.9']);

    const onPort = await create('https://example.com/over-the-port');
    const direct = await fetch(`${stack.get('redirect').url}/r/${onPort}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(direct.status).toBe(302);
    expect(await storedAddresses(onPort, 1)).toEqual(['127.0.0.1']);
  });

  it('answers unknown codes with the 404 page, and only /r/ there', async () => {
    const unknown = await viaSocket(socket, '/r/zzzzzzz');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('Link not found');
    // The ops endpoints answer loopback callers on the port, never anyone on the socket.
    for (const page of ['/readyz', '/metrics', '/healthz', '/']) {
      expect((await viaSocket(socket, page)).status).toBe(404);
    }
    expect((await fetch(`${stack.get('redirect').url}/readyz`)).status).toBe(200);
  });

  it('is its user’s alone: another local user cannot connect and name an address', () => {
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    // The folder here is open to all (0755): the socket alone keeps the others out.
    chmodSync(folder, 0o755);
    expect(connectAsNobody(socket)).toBe('EACCES');
  });

  it('takes back the socket a killed instance left behind', async () => {
    const code = await create('https://example.com/after-a-kill');
    // Killed, it cannot remove its socket: the file stays, with no one listening.
    await stack.restart(stack.get('redirect'), 'SIGKILL');
    expect((await viaSocket(socket, `/r/${code}`)).status).toBe(302);
  });

  describe('refuses to start', () => {
    let other: Server;
    let otherSocket: string;
    let starting: ServiceProcess | undefined;

    beforeAll(async () => {
      otherSocket = path.join(folder, 'taken.sock');
      other = createServer((connection) => connection.end());
      await new Promise<void>((resolve) => other.listen(otherSocket, resolve));
    });

    afterAll(async () => {
      await starting?.stop();
      await new Promise((resolve) => other.close(resolve));
    });

    async function startOn(unixSocket: string): Promise<{ code: number | null; output: string }> {
      starting = await startServiceProcess(
        'redirect',
        await freePort(),
        { ...stack.env, UNIX_SOCKET: unixSocket },
        { waitForHealth: false },
      );
      const code = await starting.exited;
      return { code, output: starting.output() };
    }

    it('on a socket another server answers on, saying so, and leaves it alone', async () => {
      const { code, output } = await startOn(otherSocket);
      expect(code).not.toBe(0);
      expect(output).toContain(`UNIX_SOCKET: ${otherSocket} is in use`);
      expect(statSync(otherSocket).isSocket()).toBe(true);
      expect(other.listening).toBe(true);
    });

    it('on a path that is not a socket, and leaves the file alone', async () => {
      const file = path.join(folder, 'not-a-socket');
      writeFileSync(file, 'keep me');
      const { code, output } = await startOn(file);
      expect(code).not.toBe(0);
      expect(output).toContain(`UNIX_SOCKET: ${file} exists and is not a socket`);
      expect(statSync(file).isFile()).toBe(true);
    });
  });
});
