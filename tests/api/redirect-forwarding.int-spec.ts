import { once } from 'node:events';
import { connect } from 'node:net';
import { startStack, type Stack } from '@shortener/testkit';
import { startCapture, type Capture } from './support/capture';

// One way to /r/ through the gateway: every request target Express would have routed to the
// redirect service (`/R/…`, the absolute form `GET http://host/r/…`) takes the /r/ fast path,
// which passes on only what the redirect service reads. The visitor's session cookie and
// credentials never leave the gateway, however the request line is written.

/** Sends `request` as written on a raw socket and resolves with the status line answered. */
async function rawStatus(port: number, request: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.write(request);
  await Promise.race([once(socket, 'end'), once(socket, 'close')]);
  socket.destroy();
  return answer.split('\r\n')[0] ?? '';
}

describe('the gateway forwards /r/ one way only', () => {
  let redirect: Capture;
  let stack: Stack;

  beforeAll(async () => {
    redirect = await startCapture((_req, res) => {
      res.writeHead(302, { location: 'https://example.com/target' });
      res.end();
    });
    stack = await startStack({
      services: ['gateway'],
      serviceEnv: { gateway: { REDIRECT_URL: redirect.url } },
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    redirect?.server.close();
  });

  it.each([
    ['/r/AbC1234', '/r/AbC1234'],
    ['/R/AbC1234', '/r/AbC1234'],
    ['/R/AbC1234?utm=1', '/r/AbC1234?utm=1'],
    ['http://localhost/r/AbC1234', '/r/AbC1234'],
    ['HTTP://LOCALHOST:8080/R/AbC1234?utm=1', '/r/AbC1234?utm=1'],
    ['https://elsewhere.example/r/AbC1234', '/r/AbC1234'],
  ])(
    'GET %s reaches the redirect service as %s, without cookies or credentials',
    async (target, forwarded) => {
      redirect.seen.length = 0;
      const status = await rawStatus(
        stack.get('gateway').port,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\n` +
          'Cookie: sid=secret-session; loggedIn=true\r\nAuthorization: Bearer secret-token\r\n' +
          'User-Agent: RoutingTest/1.0\r\nConnection: close\r\n\r\n',
      );
      expect(status).toBe('HTTP/1.1 302 Found');
      expect(redirect.seen.map(({ url }) => url)).toEqual([forwarded]);
      const [seen] = redirect.seen;
      expect(seen?.headers['cookie']).toBeUndefined();
      expect(seen?.headers['authorization']).toBeUndefined();
      expect(seen?.headers['user-agent']).toBe('RoutingTest/1.0');
    },
  );

  it("passes a password form's POST /r/ on with its body, and no cookie", async () => {
    redirect.seen.length = 0;
    const status = await rawStatus(
      stack.get('gateway').port,
      'POST /r/AbC1234 HTTP/1.1\r\nHost: localhost\r\nCookie: sid=secret-session\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n' +
        'Connection: close\r\n\r\npassword=x',
    );
    expect(status).toBe('HTTP/1.1 302 Found');
    expect(
      redirect.seen.map(({ method, url, headers, body }) => [
        method,
        url,
        headers['content-type'],
        headers.cookie,
        body.toString(),
      ]),
    ).toEqual([
      ['POST', '/r/AbC1234', 'application/x-www-form-urlencoded', undefined, 'password=x'],
    ]);
  });

  it('sends nothing else to the redirect service: other paths and methods stay in the gateway', async () => {
    redirect.seen.length = 0;
    for (const request of [
      'GET //r/AbC1234',
      'GET /rr/AbC1234',
      'PUT /r/AbC1234',
      'DELETE /r/AbC1234',
      'GET /api/r/x',
    ]) {
      await rawStatus(
        stack.get('gateway').port,
        `${request} HTTP/1.1\r\nHost: localhost\r\nCookie: sid=secret-session\r\n` +
          'Content-Length: 0\r\nConnection: close\r\n\r\n',
      );
    }
    expect(redirect.seen).toEqual([]);
  });
});
