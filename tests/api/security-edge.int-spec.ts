import { randomBytes, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { INTERNAL_TOKEN_HEADER, REQUESTED_WITH_HEADER } from '@shortener/contracts';
import { InternalClient, signInternalToken } from '@shortener/chassis';
import {
  SERVICE_NAMES,
  startOAuth2Mock,
  startStack,
  type OAuth2Mock,
  type ServiceProcess,
  type Stack,
  untilLogsWritten,
  waitFor,
} from '@shortener/testkit';
import { Browser } from './support/browser';
import { startCapture, type Capture, type Captured } from './support/capture';
import { signIn } from './support/sign-in';

// Hostile requests at the edge, on the real services from their builds: bodies too large
// or undecodable, secrets in URLs and the logs, internal tokens replayed, swapped or sent
// by a browser.

interface LogLine {
  level?: string;
  reqId?: unknown;
  req?: { id?: unknown };
  msg?: string;
  [key: string]: unknown;
}

/** The JSON log lines of a process about one request, once its last one is written. */
async function linesAbout(service: ServiceProcess, requestId: string): Promise<LogLine[]> {
  try {
    return await waitFor(
      () => {
        const lines = service
          .output()
          .split('\n')
          .filter((line) => line.includes(requestId))
          .map((line) => JSON.parse(line) as LogLine);
        return lines.some((line) => line.msg?.startsWith('request ')) && lines;
      },
      { timeoutMs: 5000, what: `the request log of ${requestId} in ${service.name}` },
    );
  } catch (error) {
    // Say what the process was doing: whether it still runs, and its last words.
    const { exitCode, signalCode } = service.child;
    const last = service.output().trimEnd().split('\n').slice(-15).join('\n');
    throw new Error(
      `${(error as Error).message}; exit code ${exitCode}, signal ${signalCode}; last output:\n${last}`,
    );
  }
}

function expectWarnedWithoutStack(lines: LogLine[]): void {
  expect(lines.some((line) => line.level === 'warn')).toBe(true);
  expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
  expect(lines.filter((line) => JSON.stringify(line).includes('"stack"'))).toEqual([]);
}

/** A client address of its own for each test, so rate-limit buckets never meet. */
function someClient(): string {
  const bytes = randomBytes(3);
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

const API_LIMIT = 4;

describe('the edge: request bodies, logs and internal tokens', () => {
  let provider: OAuth2Mock;
  let stack: Stack;
  let origin: string;
  let gateway: ServiceProcess;
  let capture: Capture;
  /** A second gateway whose auth and redirect are the capture server. */
  let edge: ServiceProcess;

  beforeAll(async () => {
    provider = await startOAuth2Mock({
      bob: { sub: `bob-${Date.now()}`, name: 'Bob', picture: '', email: 'bob@example.com' },
    });
    capture = await startCapture();
    stack = await startStack({
      env: {
        LOG_LEVEL: 'trace',
        KAFKA_CONSUMER_GROUP: 'analytics-security-edge-test',
        API_RATE_LIMIT: String(API_LIMIT),
        SIGN_IN_RATE_LIMIT: String(API_LIMIT),
      },
      serviceEnv: { auth: provider.env },
    });
    origin = stack.url;
    gateway = stack.get('gateway');
    edge = await stack.add('gateway', { AUTH_URL: capture.url, REDIRECT_URL: capture.url });
  });

  afterAll(async () => {
    await stack?.stop();
    await provider?.stop();
    capture?.server.close();
  });

  /** An /api call as the web app makes it, from a client address of its own. */
  function apiHeaders(extra: Record<string, string> = {}): Record<string, string> {
    return {
      [REQUESTED_WITH_HEADER]: 'XMLHttpRequest',
      'x-forwarded-for': someClient(),
      'x-request-id': randomUUID(),
      ...extra,
    };
  }

  async function expectRefused(
    service: ServiceProcess,
    response: Response,
    status: number,
    requestId: string,
  ): Promise<void> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(typeof body['message']).toBe('string');
    if (service === gateway) expect(Object.keys(body)).toEqual(['message']);
    expectWarnedWithoutStack(await linesAbout(service, requestId));
  }

  const shortenPath = '/api/shorten/?url=https%3A%2F%2Fexample.com%2F&days=7';

  describe('request bodies', () => {
    it('answers 413 {message} to a 20 KB JSON body on an /api route, with a warn line and no stack', async () => {
      const headers = apiHeaders({ 'content-type': 'application/json' });
      const response = await fetch(`${origin}${shortenPath}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ padding: 'x'.repeat(20 * 1024) }),
      });
      await expectRefused(gateway, response, 413, headers['x-request-id']!);
    });

    it('answers 413 to a large body sent in chunks, without a Content-Length', async () => {
      const headers = apiHeaders({ 'content-type': 'application/json' });
      const chunk = new TextEncoder().encode(`"${'y'.repeat(1024)}",`);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('['));
          if (sent++ < 40) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const response = await fetch(`${origin}${shortenPath}`, {
        method: 'POST',
        headers,
        body,
        duplex: 'half',
      });
      await expectRefused(gateway, response, 413, headers['x-request-id']!);
    });

    it('answers 400 {message} to a corrupt gzip body on an /api route, with a warn line and no stack', async () => {
      const headers = apiHeaders({
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      });
      const response = await fetch(`${origin}${shortenPath}`, {
        method: 'POST',
        headers,
        body: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), randomBytes(64)]),
      });
      await expectRefused(gateway, response, 400, headers['x-request-id']!);
    });

    it('answers 413 to a gzip body that inflates past the limit (a zip bomb) and 415 to an unknown encoding', async () => {
      const bomb = apiHeaders({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
      const inflated = await fetch(`${origin}${shortenPath}`, {
        method: 'POST',
        headers: bomb,
        body: gzipSync(JSON.stringify({ padding: 'z'.repeat(1024 * 1024) })),
      });
      await expectRefused(gateway, inflated, 413, bomb['x-request-id']!);

      const unknown = apiHeaders({ 'content-type': 'application/json', 'content-encoding': 'xz' });
      const response = await fetch(`${origin}${shortenPath}`, {
        method: 'POST',
        headers: unknown,
        body: '{}',
      });
      await expectRefused(gateway, response, 415, unknown['x-request-id']!);
    });

    it('answers 413 to a 200 KB form and 400 to a corrupt gzip form on /auth/local', async () => {
      const large = { 'x-forwarded-for': someClient(), 'x-request-id': randomUUID() };
      const form = await fetch(`${origin}/auth/local`, {
        method: 'POST',
        headers: { ...large, 'content-type': 'application/x-www-form-urlencoded', origin },
        body: `name=${'a'.repeat(200 * 1024)}`,
        redirect: 'manual',
      });
      expect(form.status).toBe(413);
      expect(form.headers.get('content-type')).toContain('application/json');
      expect(Object.keys((await form.json()) as object)).toEqual(['message']);

      const corrupt = { 'x-forwarded-for': someClient(), 'x-request-id': randomUUID() };
      const gzip = await fetch(`${origin}/auth/local`, {
        method: 'POST',
        headers: {
          ...corrupt,
          'content-type': 'application/x-www-form-urlencoded',
          'content-encoding': 'gzip',
          origin,
        },
        body: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), randomBytes(64)]),
        redirect: 'manual',
      });
      expect(gzip.status).toBe(400);
      // The gateway refuses the declared size itself; the bad gzip is the auth service's to find.
      expectWarnedWithoutStack(await linesAbout(gateway, large['x-request-id']));
      expectWarnedWithoutStack(await linesAbout(stack.get('auth'), corrupt['x-request-id']));
    });

    it('counts a request against the rate limit before reading its body', async () => {
      const client = someClient();
      for (let i = 0; i < API_LIMIT; i++) {
        const response = await fetch(`${origin}/api/user`, {
          headers: apiHeaders({ 'x-forwarded-for': client }),
        });
        expect(response.status).toBe(401);
      }
      const response = await fetch(`${origin}${shortenPath}`, {
        method: 'POST',
        headers: apiHeaders({
          'x-forwarded-for': client,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        }),
        body: randomBytes(30 * 1024),
      });
      expect(response.status).toBe(429);
    });

    it('has the internal services answer 413 and 400 with {message}, a warn line and no stack', async () => {
      for (const name of ['auth', 'links', 'analytics'] as const) {
        const service = stack.get(name);
        const large = randomUUID();
        const tooLarge = await fetch(`${service.url}/internal/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': large },
          body: JSON.stringify({ padding: 'x'.repeat(64 * 1024) }),
        });
        await expectRefused(service, tooLarge, 413, large);

        const corrupt = randomUUID();
        const undecodable = await fetch(`${service.url}/internal/links`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'x-request-id': corrupt,
          },
          body: randomBytes(64),
        });
        await expectRefused(service, undecodable, 400, corrupt);

        const malformed = randomUUID();
        const notJson = await fetch(`${service.url}/internal/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': malformed },
          body: '{"url": ',
        });
        await expectRefused(service, notJson, 400, malformed);
      }
    });
  });

  describe('logs', () => {
    it('never carry a URL query or OAuth code and state, at LOG_LEVEL=trace, in any service', async () => {
      const secrets = Array.from({ length: 4 }, () => randomBytes(12).toString('hex'));
      const [token, key, campaign, unknown] = secrets as [string, string, string, string];
      const target = `https://docs.example/report?token=${token}&key=${key}`;
      const shortened = await fetch(
        `${origin}/api/shorten/?url=${encodeURIComponent(target)}&days=7`,
        { method: 'POST', headers: apiHeaders() },
      );
      // The status with the answer, so a refusal says why.
      const answer = await shortened.text();
      expect(`${shortened.status} ${answer}`).toMatch(/^201 /);
      const { url: shortCode } = JSON.parse(answer) as { url: string };
      const visit = await fetch(`${origin}/r/${shortCode}?utm=${campaign}`, { redirect: 'manual' });
      expect(visit.status).toBe(302);
      const missing = await fetch(`${origin}/api/nothing-here?secret=${unknown}`, {
        headers: apiHeaders(),
      });
      expect(missing.status).toBe(404);

      const browser = new Browser({ 'x-forwarded-for': someClient() });
      const trip = await signIn(browser, origin, 'bob', '/');
      expect(trip.callback.status).toBe(302);
      const callback = new URL(trip.callbackUrl);
      const code = callback.searchParams.get('code')!;
      const state = callback.searchParams.get('state')!;
      // A replayed callback is refused and logged: still without its parameters.
      const replay = await browser.fetch(trip.callbackUrl);
      expect(replay.status).toBe(400);

      // Every process has written the lines of these requests.
      for (const name of SERVICE_NAMES) {
        for (const service of stack.all(name)) await untilLogsWritten(service);
      }
      const output = stack.output();
      expect(output).toContain('/api/shorten');
      expect(output).toContain('/auth/google/callback');
      const values = [token, key, campaign, unknown, code, state];
      const leaks = output.split('\n').filter((line) => values.some((v) => line.includes(v)));
      expect(leaks).toEqual([]);
    });
  });

  describe('internal tokens', () => {
    /** The exact request an InternalClient sends, taken off the wire. */
    async function signedRequest(body: unknown): Promise<Captured> {
      const before = capture.seen.length;
      await new InternalClient('capture', capture.url, stack.secret).request(
        'POST',
        '/internal/links',
        { identity: { userId: null }, body },
      );
      const request = capture.seen[before];
      if (!request) throw new Error('the capture server saw no request');
      return request;
    }

    function replay(request: Captured, body = request.body): Promise<Response> {
      return fetch(`${stack.get('links').url}${request.url}`, {
        method: request.method,
        headers: {
          [INTERNAL_TOKEN_HEADER]: String(request.headers[INTERNAL_TOKEN_HEADER]),
          'content-type': String(request.headers['content-type']),
        },
        body,
      });
    }

    it('are refused when replayed: the same signed request is taken once', async () => {
      const request = await signedRequest({ url: `https://replay.example/${randomUUID()}` });
      expect((await replay(request)).status).toBe(201);
      expect((await replay(request)).status).toBe(401);
    });

    it('are refused with another body than the one signed', async () => {
      const request = await signedRequest({ url: 'https://signed.example/' });
      const swapped = Buffer.from(JSON.stringify({ url: 'https://swapped.example/' }));
      expect((await replay(request, swapped)).status).toBe(401);
    });

    it('sent by a browser never reach the services behind the gateway', async () => {
      const forged = signInternalToken(
        stack.secret,
        { userId: null },
        { method: 'GET', path: '/login' },
      );
      const before = capture.seen.length;
      const headers = {
        [INTERNAL_TOKEN_HEADER]: forged,
        'x-internal-user': 'someone',
        'x-forwarded-for': someClient(),
      };
      const answers = await Promise.all([
        fetch(`${edge.url}/login`, { headers, redirect: 'manual' }),
        fetch(`${edge.url}/auth/google/callback?code=a&state=b`, { headers, redirect: 'manual' }),
        fetch(`${edge.url}/auth/local`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=mallory',
          redirect: 'manual',
        }),
        fetch(`${edge.url}/logout`, { method: 'POST', headers, redirect: 'manual' }),
        fetch(`${edge.url}/r/abc`, { headers, redirect: 'manual' }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      const reached = capture.seen.slice(before);
      expect(reached.map((request) => request.url).sort()).toEqual(
        [
          '/auth/google/callback?code=a&state=b',
          '/auth/local',
          '/login',
          '/logout',
          '/r/abc',
        ].sort(),
      );
      for (const request of reached) {
        // The capture saw the request as forwarded: the gateway's own headers are there...
        expect(request.headers['x-request-id']).toBeDefined();
        // ...and none of the client's internal ones.
        expect(
          Object.keys(request.headers).filter((name) => name.startsWith('x-internal-')),
        ).toEqual([]);
      }
      const form = reached.find((request) => request.url === '/auth/local');
      expect(form?.body.toString()).toBe('name=mallory');
    });
  });
});
