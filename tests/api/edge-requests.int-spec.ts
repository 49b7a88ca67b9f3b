import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { CLIENT_ERROR_MESSAGES, InternalClient } from '@shortener/chassis';
import { internalApi, MESSAGES, REQUESTED_WITH_HEADER } from '@shortener/contracts';
import { REPO_ROOT, startStack, waitFor, type EdgeProcess, type Stack } from '@shortener/testkit';
import { securityHeaderValues } from '../../services/gateway/src/edge/security-headers';
import type { Capture } from './support/capture';
import { RawConnection, type RawAnswer } from './support/raw-http';
import { startStandInEdge, type StandInEdge } from './support/stand-in-edge';

// Requests written to hurt someone else at the edge (issue 25 items 2, 4, 8 and 13): a body
// on /r/ that desynchronises a kept-alive connection, requests sent a byte at a time, heads
// one process takes and the next refuses, error lines that would log a query string. Over
// raw sockets, through the nginx edge and to the services behind it directly.

const TEMPLATE = readFileSync(path.join(REPO_ROOT, 'infra/edge/shortener.conf.template'), 'utf8');

/**
 * How long the edge waits for a head, or between two reads of a body (client_header_timeout,
 * client_body_timeout): at most 10 s, nginx's default of 60 s being what let them linger.
 */
const EDGE_TIMEOUT_MS = Math.min(
  Number(/client_header_timeout (\d+)s;/.exec(TEMPLATE)?.[1] ?? 60) * 1000,
  10_000,
);
/** The edge's cap on requests in progress per client address (limit_conn). */
const EDGE_CONNECTION_CAP = Number(/limit_conn \w+ (\d+);/.exec(TEMPLATE)?.[1] ?? 100);

/** The security headers the gateway puts on its answers, for a plain-http origin. */
const SECURITY_HEADERS = securityHeaderValues('http://localhost:8080');

function expectJsonError(answer: RawAnswer | undefined, status: number, message: string): void {
  expect(answer && { status: answer.status, body: answer.body }).toEqual({
    status,
    body: JSON.stringify({ message }),
  });
  expect(answer!.headers['content-type']).toBe('application/json; charset=utf-8');
}

/** The head of a GET of `page`, with `lines` (each `Name: value`) after its Host. */
function get(page: string, ...lines: string[]): string {
  return [`GET ${page} HTTP/1.1`, 'Host: localhost', ...lines, '', ''].join('\r\n');
}

/** One request on a new connection: its answer. */
async function once(target: string | { path: string }, request: string): Promise<RawAnswer> {
  const connection = await RawConnection.open(target);
  try {
    connection.write(request);
    const answer = await connection.next();
    if (!answer) throw new Error(`no answer to ${JSON.stringify(request.slice(0, 60))}`);
    return answer;
  } finally {
    connection.close();
  }
}

/** A body in each framing a client may give it, after the head of `GET page`. */
function withBody(page: string, body: string): Record<string, string> {
  const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  return {
    'Content-Length': get(page, `Content-Length: ${Buffer.byteLength(body)}`) + body,
    chunked: get(page, 'Transfer-Encoding: chunked') + chunked,
    'Content-Length and chunked':
      get(page, 'Content-Length: 5', 'Transfer-Encoding: chunked') + chunked,
  };
}

describe('requests against other visitors, at the edge', () => {
  describe('the nginx edge, in front of stand-in services', () => {
    let standIns: StandInEdge;
    let redirect: Capture;
    let gateway: Capture;
    let edge: EdgeProcess;
    const held: ServerResponse[] = [];

    beforeAll(async () => {
      standIns = await startStandInEdge({
        redirect: (req, res) => {
          // An upstream that fails mid-answer: the edge logs the request it was serving.
          if (req.url?.startsWith('/r/broken')) return void req.socket.destroy();
          res.writeHead(302, { location: 'https://example.com/target' });
          res.end();
        },
        gateway: (req, res) => {
          if (req.url === '/api/hold') return void held.push(res);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"from":"gateway"}');
        },
      });
      ({ redirect, gateway, edge } = standIns);
    });

    afterAll(async () => {
      for (const res of held) res.end();
      await standIns?.stop();
    });

    beforeEach(() => standIns.forget());

    it('refuses a body on /r/ in any framing, 400 in JSON, and sends nothing on (item 2)', async () => {
      const framings = {
        ...withBody('/r/abc1234', 'GET /r/smuggled HTTP/1.1\r\nHost: x\r\n\r\n'),
        'a Content-Length it has not sent yet': get('/r/abc1234', 'Content-Length: 100000'),
      };
      for (const [framing, request] of Object.entries(framings)) {
        const connection = await RawConnection.open(edge.url);
        connection.write(request);
        const answer = await connection.next(3_000);
        // Framed both ways a request is malformed, whatever its path: refused before routing.
        const malformed = framing === 'Content-Length and chunked';
        expectJsonError(
          answer,
          400,
          malformed ? CLIENT_ERROR_MESSAGES.badRequest : MESSAGES.noBodyOnShortLink,
        );
        // The connection carries nothing more (nginx reads what is left of the body first).
        expect({ framing, connection: answer!.headers.connection }).toEqual({
          framing,
          connection: 'close',
        });
        connection.close();
      }
      expect(redirect.seen).toHaveLength(0);
      // Content-Length 0 is no body: redirected as ever.
      expect((await once(edge.url, get('/r/abc1234', 'Content-Length: 0'))).status).toBe(302);
    });

    it('prints no query string of a request it logs an error about (item 4)', async () => {
      const answer = await once(
        edge.url,
        get(
          '/r/broken?utm_token=SECRET-IN-QUERY&x=1',
          'Referer: https://news.example/item?session=SECRET-IN-REFERER',
        ),
      );
      expect(answer.status).toBe(502);
      // The error line is there, with the request it is about, but no query of any URL in it.
      const line = await waitFor(
        () =>
          edge
            .output()
            .split('\n')
            .find((text) => text.includes('prematurely closed')),
        { timeoutMs: 5_000, what: 'the edge to log the upstream failure' },
      );
      expect(line).toContain('request: "GET /r/broken HTTP/1.1"');
      expect(line).toContain('referrer: "https://news.example/item"');
      expect(edge.output()).not.toContain('SECRET');
    });

    it('closes a connection whose head or body stops coming, within its timeout (item 8)', async () => {
      const slowHead = await RawConnection.open(edge.url);
      slowHead.write('GET /api/user HTTP/1.1\r\nHost: localhost\r\n');
      const slowBody = await RawConnection.open(edge.url);
      slowBody.write(
        'POST /api/shorten HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10000\r\n\r\nx',
      );
      // A header line every 2 s keeps no connection open past the head's limit.
      void slowHead.drip(
        Array.from({ length: 20 }, (_, i) => `X-Slow-${i}: 1\r\n`),
        2_000,
      );
      const [head, body] = await Promise.all(
        [slowHead, slowBody].map((connection) => connection.closedWithin(EDGE_TIMEOUT_MS + 4_000)),
      );
      slowHead.close();
      slowBody.close();
      expect({ head: head !== undefined, body: body !== undefined }).toEqual({
        head: true,
        body: true,
      });
    }, 30_000);

    it(`caps requests in progress from one address, then 429 in JSON (item 8)`, async () => {
      const connections = await Promise.all(
        Array.from({ length: EDGE_CONNECTION_CAP }, () => RawConnection.open(edge.url)),
      );
      try {
        for (const connection of connections) connection.write(get('/api/hold'));
        await waitFor(() => held.length >= EDGE_CONNECTION_CAP, {
          timeoutMs: 10_000,
          what: `${EDGE_CONNECTION_CAP} requests held by the gateway`,
        });
        const answer = await once(edge.url, get('/api/hold'));
        expectJsonError(answer, 429, CLIENT_ERROR_MESSAGES.tooManyConnections);
        expect(answer.headers).toMatchObject(SECURITY_HEADERS);
      } finally {
        for (const res of held.splice(0)) res.end();
        for (const connection of connections) connection.close();
      }
      // Once they are answered, the address is served again.
      await waitFor(async () => (await once(edge.url, get('/api/x'))).status === 200, {
        timeoutMs: 5_000,
        what: 'the address served again',
      });
    });

    it('answers its own errors in JSON, with the gateway’s security headers (item 13)', async () => {
      const filler = (count: number) =>
        Array.from({ length: count }, (_, i) => `X-Fill-${i}: ${'f'.repeat(3_000)}`);
      const answers: Array<[RawAnswer, number, string]> = [
        [await once(edge.url, 'NOT A REQUEST\r\n\r\n'), 400, CLIENT_ERROR_MESSAGES.badRequest],
        [
          await once(edge.url, get('/r/abc1234', 'Content-Length: 3') + 'abc'),
          400,
          MESSAGES.noBodyOnShortLink,
        ],
        [
          await once(
            edge.url,
            'POST /api/shorten HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n',
          ),
          413,
          'Request body too large',
        ],
        [
          await once(edge.url, get('/api/user', ...filler(8))),
          431,
          CLIENT_ERROR_MESSAGES.headersTooLarge,
        ],
        [
          await once(edge.url, get(`/api/user?${'q'.repeat(20_000)}`)),
          431,
          CLIENT_ERROR_MESSAGES.headersTooLarge,
        ],
        [await once(edge.url, get('/r/broken')), 502, MESSAGES.serverError],
      ];
      for (const [answer, status, message] of answers) {
        expectJsonError(answer, status, message);
        expect(answer.headers).toMatchObject(SECURITY_HEADERS);
      }
      expect(gateway.seen).toHaveLength(0);
    });

    it('passes on only heads the gateway takes whole (under its 16 KB), refusing larger ones itself', async () => {
      const sizes: Record<number, number> = {};
      for (const count of [1, 2, 3, 4, 5, 6, 7]) {
        const lines = Array.from({ length: count }, (_, i) => `X-Fill-${i}: ${'f'.repeat(2_900)}`);
        sizes[count] = (await once(edge.url, get('/api/user', ...lines))).status;
      }
      // Node's limit, what the gateway takes, is 16 KB, the edge's own headers included.
      const passed = gateway.seen.map(({ headers }) =>
        Object.entries(headers).reduce(
          (sum, [name, value]) => sum + name.length + String(value).length + 4,
          0,
        ),
      );
      expect(Math.max(...passed)).toBeLessThan(16 * 1024);
      expect(sizes).toEqual({ 1: 200, 2: 200, 3: 200, 4: 200, 5: 431, 6: 431, 7: 431 });
    });
  });

  describe('the services behind it (startStack with `edge`, as npm run stack)', () => {
    let stack: Stack;
    let links: InternalClient;
    const TIMEOUTS = { HEADERS_TIMEOUT_MS: 1_500, REQUEST_TIMEOUT_MS: 3_000 };
    /** Node checks its request timers once a second: a timeout is acted on within that. */
    const CHECK_MS = 1_000;

    async function createLink(target: string): Promise<string> {
      const response = await links.call(internalApi.createLink, {
        identity: { userId: null },
        body: { url: target, days: 1 },
      });
      if (response.status !== 201) throw new Error(`not created: ${response.body.message}`);
      return response.body.urlID;
    }

    beforeAll(async () => {
      stack = await startStack({
        services: ['links', 'auth', 'redirect', 'gateway'],
        edge: true,
        env: {
          KAFKA_CONSUMER_GROUP: 'analytics-edge-requests-test',
          SHORTEN_RATE_LIMIT_ANONYMOUS: String(1_000_000_000),
          HEADERS_TIMEOUT_MS: String(TIMEOUTS.HEADERS_TIMEOUT_MS),
          REQUEST_TIMEOUT_MS: String(TIMEOUTS.REQUEST_TIMEOUT_MS),
        },
      });
      links = new InternalClient('links', stack.get('links').url, stack.secret);
    }, 120_000);

    afterAll(async () => {
      await stack?.stop();
    });

    it('gives the next visitor their redirect, whatever body came before on /r/ (item 2)', async () => {
      const code = await createLink('https://example.com/the-victim');
      const smuggled = `GET /r/${code} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const framings = {
        ...withBody('/r/zzzzzzz', smuggled),
        '100,000 bytes': get('/r/zzzzzzz', 'Content-Length: 100000') + 'x'.repeat(100_000),
      };
      for (const [framing, attack] of Object.entries(framings)) {
        const attacker = await RawConnection.open(stack.url);
        attacker.write(attack);
        const refused = await attacker.next(3_000);
        attacker.close();
        const began = Date.now();
        const victim = await once(stack.url, get(`/r/${code}`));
        expect({ framing, refused: refused?.status, victim: victim.status }).toEqual({
          framing,
          refused: 400,
          victim: 302,
        });
        expect(victim.headers.location).toBe('https://example.com/the-victim');
        expect(Date.now() - began).toBeLessThan(1_000);
      }
    });

    it('the redirect service refuses a body it will not read and closes, on its port and socket (item 2)', async () => {
      const code = await createLink('https://example.com/direct');
      const targets = { port: stack.get('redirect').url, socket: { path: stack.redirectSocket! } };
      for (const [where, target] of Object.entries(targets)) {
        for (const framing of ['Content-Length: 40', 'Transfer-Encoding: chunked']) {
          // What the edge used to do: the framing without the body, then the next request.
          const connection = await RawConnection.open(target);
          connection.write(get(`/r/${code}`, framing));
          const first = await connection.next(2_000);
          connection.write(get(`/r/${code}`));
          const second = await connection.next(1_000);
          connection.close();
          expect({
            where,
            framing,
            first: first?.status,
            connection: first?.headers.connection,
          }).toEqual({
            where,
            framing,
            first: 400,
            connection: 'close',
          });
          expectJsonError(first, 400, MESSAGES.noBodyOnShortLink);
          expect(second).toBeUndefined();
        }
      }
    });

    it('the gateway’s /r/ refuses a body too, and never answers a request smuggled in one (item 2)', async () => {
      const code = await createLink('https://example.com/via-gateway');
      const smuggled = get(`/r/${code}`);
      for (const [framing, request] of Object.entries(withBody(`/r/${code}`, smuggled))) {
        const connection = await RawConnection.open(stack.get('gateway').url);
        connection.write(request);
        const first = await connection.next(2_000);
        const second = await connection.next(1_000);
        connection.close();
        expect({ framing, first: first?.status, second: second?.status }).toEqual({
          framing,
          first: 400,
          second: undefined,
        });
        expect(first!.headers).toMatchObject(SECURITY_HEADERS);
      }
    });

    it('takes an HTTP/1.0 request without Host through the edge to the gateway (item 13)', async () => {
      const answer = await once(stack.url, 'GET /healthz HTTP/1.0\r\n\r\n');
      expect(answer.status).toBe(200);
    });

    it('one limit on heads: the gateway refuses what is too large itself in JSON, never empty (item 13)', async () => {
      const lines = (count: number) =>
        Array.from({ length: count }, (_, i) => `X-Fill-${i}: ${'f'.repeat(2_900)}`);
      // Through the edge, no head is refused by the gateway behind it with an empty body.
      for (const count of [1, 3, 5, 6, 8]) {
        const answer = await once(
          stack.url,
          get('/api/user', `${REQUESTED_WITH_HEADER}: XMLHttpRequest`, ...lines(count)),
        );
        if (answer.status === 431)
          expectJsonError(answer, 431, CLIENT_ERROR_MESSAGES.headersTooLarge);
        else expect({ count, status: answer.status }).toEqual({ count, status: 401 });
      }
      // The gateway as the edge (npm start, --no-edge): its own 431 is JSON, with its headers.
      const direct = await once(stack.get('gateway').url, get('/api/user', ...lines(7)));
      expectJsonError(direct, 431, CLIENT_ERROR_MESSAGES.headersTooLarge);
      expect(direct.headers).toMatchObject(SECURITY_HEADERS);
    });

    it('closes slow heads and bodies after HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (item 8)', async () => {
      const headOnly = (url: string) => RawConnection.open(url);
      const slowHeads = await Promise.all(
        [stack.get('gateway').url, stack.get('redirect').url].map(headOnly),
      );
      for (const connection of slowHeads) {
        connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
        void connection.drip(
          Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`),
          300,
        );
      }
      // The shorten that declares 10,000 bytes and sends one now and then: to the
      // gateway, and through the edge (which streams bodies to it).
      const slowBodies = await Promise.all([stack.get('gateway').url, stack.url].map(headOnly));
      for (const connection of slowBodies) {
        connection.write(
          'POST /api/shorten/?url=https%3A%2F%2Fexample.com%2F HTTP/1.1\r\nHost: localhost\r\n' +
            `${REQUESTED_WITH_HEADER}: XMLHttpRequest\r\nContent-Type: application/json\r\n` +
            'Content-Length: 10000\r\n\r\n',
        );
        void connection.drip(
          Array.from({ length: 40 }, () => ' '),
          300,
        );
      }
      const closed = await Promise.all([
        ...slowHeads.map((c) => c.closedWithin(TIMEOUTS.HEADERS_TIMEOUT_MS + CHECK_MS + 1_500)),
        ...slowBodies.map((c) => c.closedWithin(TIMEOUTS.REQUEST_TIMEOUT_MS + CHECK_MS + 1_500)),
      ]);
      for (const connection of [...slowHeads, ...slowBodies]) connection.close();
      expect(closed.map((ms) => ms !== undefined)).toEqual([true, true, true, true]);
    }, 30_000);
  });
});
