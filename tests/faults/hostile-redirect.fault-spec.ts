import fc from 'fast-check';
import {
  freePort,
  startServiceProcess,
  testServers,
  type ServiceProcess,
} from '@shortener/testkit';
import { header, rawRequest } from './support/raw-http';
import {
  alphanumeric,
  cases,
  checkAnswer,
  createInternal,
  headerText,
  inTarget,
  known,
  note,
  redirectPort,
  run,
  runs,
  stack,
  text,
  useHostileStack,
} from './support/hostile';

/**
 * Whether `location` is the stored URL with the short link's query forwarded: the same place
 * and fragment, the destination's own parameters as they are (they win a clash), and any other
 * parameter one of the request's query (`asked`).
 */
function forwardsQuery(stored: URL, location: URL, asked: string): boolean {
  if (
    location.origin !== stored.origin ||
    location.pathname !== stored.pathname ||
    location.hash !== stored.hash
  ) {
    return false;
  }
  const own = stored.searchParams;
  const got = location.searchParams;
  for (const name of new Set(own.keys())) {
    if (got.getAll(name).join('\n') !== own.getAll(name).join('\n')) return false;
  }
  const forwarded = new URLSearchParams(asked);
  return [...got].every(([name, value]) => own.has(name) || forwarded.getAll(name).includes(value));
}

describe('hostile input: redirect: /r/ for any path and the miss budget per client', () => {
  useHostileStack();

  /** A second redirect instance with a small miss budget, started by the budget property. */
  let budgeted: ServiceProcess | undefined;
  afterAll(async () => {
    await budgeted?.stop();
  });

  it('redirect: any path under /r/ answers 302 to the stored URL of its code (its query forwarded), or no redirect', async () => {
    const codes = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        createInternal({ userId: null }, `https://example.com/h/${run}/${i}?q=<a>`),
      ),
    );
    const knownCode = fc.constantFrom(...codes.map((link) => link.urlID));
    const path = fc.oneof(
      knownCode,
      fc.tuple(knownCode, text).map(([code, rest]) => `${code}${rest}`),
      fc.tuple(text, knownCode).map(([rest, code]) => `${rest}${code}`),
      knownCode.map((code) => code.toUpperCase()),
      fc.string({ unit: 'binary', maxLength: 32 }),
      fc.string({ minLength: 7, maxLength: 7 }),
      text,
    );
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.boolean(),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant('GET') },
          fc.constantFrom('HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'G<T'),
        ),
        fc.array(
          fc.tuple(
            fc.constantFrom('User-Agent', 'Referer', 'X-Forwarded-For', 'Accept'),
            headerText,
          ),
          {
            maxLength: 3,
          },
        ),
        async (rest, raw, method, headers) => {
          const target = `/r/${inTarget(rest, raw)}`;
          const response = await rawRequest(redirectPort, { method, target, headers });
          note(response.status);
          // The code the service reads: the target ends at the first space of the request
          // line (a raw one may hold several), the code after /r/ at the query.
          const [code = '', ...query] = target.split(' ')[0]!.slice(3).split('?');
          const stored = known.get(code);
          checkAnswer(response, `http://127.0.0.1:${redirectPort}`, {
            input: rest,
            mayRedirectTo: (location) =>
              stored !== undefined &&
              response.status === 302 &&
              forwardsQuery(new URL(stored), location, query.join('?')),
          });
        },
      ),
      runs(3000),
    );
  });

  it("redirect: a client's unknown codes past its miss budget answer 429 while its links still redirect; an IPv6 client is its /64 (items 10, 11)", async () => {
    // This stack's redirect has the budget raised out of the way; this one keeps it small.
    const BURST = 3;
    budgeted = await startServiceProcess('redirect', await freePort(), {
      INTERNAL_API_SECRET: stack!.secret,
      REDIS_URL: testServers.redisUrl,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      LINKS_URL: stack!.get('links').url,
      TRUSTED_PROXIES: '127.0.0.1,::1',
      LOG_LEVEL: 'warn',
      REDIRECT_MISS_BURST: String(BURST),
      // One more a minute: none comes back within a case.
      REDIRECT_MISS_BUDGET: '1',
    });
    const port = budgeted.port;
    const links = await Promise.all(
      [0, 1, 2].map((i) =>
        createInternal({ userId: null }, `https://example.com/budget/${run}/${i}`),
      ),
    );
    let clients = 0;
    let serial = 0;
    /** A client of its own: an IPv4 address, or an IPv6 /64 (as four groups). */
    const newClient = (v6: boolean): { v4?: string; v6?: number[] } => {
      const n = clients++;
      return v6
        ? { v6: [0x2001, 0xdb8, n >> 16, n & 0xffff] }
        : { v4: `198.18.${(n >> 8) & 255}.${n & 255}` };
    };
    /** One address of the client, spelled one of the ways a proxy may write it. */
    const addressOf = (
      client: { v4?: string; v6?: number[] },
      iid: number[],
      spelling: number,
    ): string => {
      if (client.v4) return spelling % 2 === 0 ? client.v4 : `::ffff:${client.v4}`;
      const groups = [...client.v6!, ...iid];
      const hex = groups.map((g) => g.toString(16));
      switch (spelling % 5) {
        case 0:
          return hex.join(':');
        case 1:
          return groups
            .map((g) => g.toString(16).padStart(4, '0'))
            .join(':')
            .toUpperCase();
        case 2:
          // Compressed, as a URL parser writes it.
          return new URL(`http://[${hex.join(':')}]/`).hostname.slice(1, -1);
        case 3: {
          const [g6 = 0, g7 = 0] = groups.slice(6);
          return `${hex.slice(0, 6).join(':')}:${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
        }
        default:
          return hex.join(':').toUpperCase();
      }
    };
    const step = fc.record({
      kind: fc.oneof(
        { weight: 3, arbitrary: fc.constant('unknown') },
        { weight: 1, arbitrary: fc.constant('known') },
        { weight: 1, arbitrary: fc.constant('malformed') },
      ),
      code: alphanumeric(4, 4),
      // No code: a generated code or an alias is 4 to 50 of A-Z a-z 0-9 - _ (issue 28).
      malformed: fc.oneof(
        alphanumeric(1, 3),
        alphanumeric(51, 60),
        fc.constantFrom('ab-', 'abc.def', 'abc~def', 'abc%20def', '%2E%2E'),
      ),
      link: fc.nat({ max: links.length - 1 }),
      iid: fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }),
      spelling: fc.nat({ max: 9 }),
      hops: fc.constantFrom('alone', 'after others', 'two headers'),
    });
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (v6, steps) => {
          const client = newClient(v6);
          const neighbour = newClient(v6);
          let tokens = BURST;
          const ask = (code: string, address: string, hops: string) => {
            const forwarded: [string, string][] =
              hops === 'alone'
                ? [['X-Forwarded-For', address]]
                : hops === 'after others'
                  ? [['X-Forwarded-For', `203.0.113.9, unknown, ::1, ${address}`]]
                  : [
                      ['X-Forwarded-For', '127.0.0.1, 2001:db8:ffff::1'],
                      ['X-Forwarded-For', ` ${address} `],
                    ];
            return rawRequest(port, { target: `/r/${code}`, headers: forwarded });
          };
          const trail: string[] = [];
          for (const s of steps) {
            const address = addressOf(client, s.iid, s.spelling);
            const unique = (serial++).toString(36).padStart(3, '0');
            const code =
              s.kind === 'unknown'
                ? `${s.code}${unique}`
                : s.kind === 'known'
                  ? links[s.link]!.urlID
                  : s.malformed;
            const response = await ask(code, address, s.hops);
            note(response.status);
            trail.push(`${s.kind} ${code} from ${address}: ${response.status}`);
            let expected: number;
            if (s.kind === 'known') expected = 302;
            else if (s.kind === 'malformed') expected = 404;
            else if (tokens >= 1) {
              expected = 404;
              tokens -= 1;
            } else expected = 429;
            const where = header(response, 'location');
            const fine =
              response.status === expected &&
              (expected !== 302 || where === known.get(links[s.link]!.urlID)) &&
              (expected !== 429 || Number(header(response, 'retry-after')) >= 1);
            if (!fine) throw new Error(`expected ${expected}:\n${trail.join('\n')}`);
            if (expected === 429) refused += 1;
          }
          // Another client (the next /64) has its budget whole.
          const next = await ask(
            `${steps[0]!.code}${(serial++).toString(36).padStart(3, '0')}`,
            addressOf(neighbour, [0, 0, 0, 1], 0),
            'alone',
          );
          note(next.status);
          if (next.status !== 404)
            throw new Error(`the next client: ${next.status}\n${trail.join('\n')}`);
        },
      ),
      runs(150),
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('ran its 3,150 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(3150);
  });
});
