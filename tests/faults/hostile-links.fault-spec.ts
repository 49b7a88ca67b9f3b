import fc from 'fast-check';
import { internalApi, internalErrorSchema, internalLinkSchema } from '@shortener/contracts';
import { header, rawRequest } from './support/raw-http';
import {
  cases,
  createInternal,
  encode,
  gateway,
  links,
  note,
  ownedCount,
  redirectPort,
  run,
  runs,
  short,
  text,
  urlLike,
  useHostileStack,
  SHORT_LINK_HOST,
} from './support/hostile';

describe("hostile input: links API: what is stored, no loops, no one else's links", () => {
  useHostileStack();

  it('links API: a URL is stored only when it is a safe http(s) URL, and nothing on a refusal', async () => {
    const owner = `hostile-internal-${run}`;
    let expected = await ownedCount(owner);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: urlLike },
          { weight: 1, arbitrary: fc.array(urlLike, { maxLength: 3 }) },
          { weight: 1, arbitrary: fc.jsonValue() },
        ),
        fc.oneof(fc.constantFrom(7, 15, 30, 60, '60', 45, -1, 'x', null), fc.jsonValue()),
        fc.boolean(),
        async (url, days, anonymous) => {
          const identity = { userId: anonymous ? null : owner };
          // Raw: a hostile body may meet refusals no caller expects (413 for a huge one).
          const response = await links.request('POST', '/internal/links', {
            identity,
            body: { url, days },
          });
          note(response.status);
          const input = short(JSON.stringify(url) ?? 'undefined', 200);
          if (response.status >= 500) throw new Error(`${input}: ${response.status}`);
          if (response.status === 201) {
            const link = internalLinkSchema.parse(response.body);
            const stored = new URL(link.originalUrl);
            if (
              !['http:', 'https:'].includes(stored.protocol) ||
              stored.username ||
              stored.password
            ) {
              throw new Error(`${input}: stored ${link.originalUrl}`);
            }
            if (!anonymous) expected += 1;
            // Its redirect goes exactly there.
            const redirect = await rawRequest(redirectPort, { target: `/r/${link.urlID}` });
            if (redirect.status !== 302 || header(redirect, 'location') !== stored.href) {
              throw new Error(
                `${input}: redirect ${redirect.status} to ${header(redirect, 'location')}`,
              );
            }
            return;
          }
          if (response.status < 400 || !internalErrorSchema.safeParse(response.body).success) {
            throw new Error(`${input}: ${response.status} ${JSON.stringify(response.body)}`);
          }
          const now = await ownedCount(owner);
          if (now !== expected)
            throw new Error(`${input}: refused with ${response.status} but stored`);
        },
      ),
      runs(1500),
    );
  });

  it('links API: a short link of this service, however its host is spelled, is refused (no loops)', async () => {
    const gatewayHost = new URL(gateway.origin);
    const spellings = fc.oneof(
      // The configured short-link host: case, a trailing dot (the same name, fully qualified),
      // percent-encoded characters, the default port written out.
      fc
        .tuple(
          fc.constantFrom('http', 'https'),
          fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
          fc.constantFrom('', '.', '%2E', '%2e'),
          fc.constantFrom('', ':443', ':80'),
          fc.boolean(),
        )
        .map(([scheme, upper, dot, port, encoded]) => {
          const name = [...SHORT_LINK_HOST]
            .map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c))
            .join('');
          const host = encoded ? name.replace('o', '%6F') : name;
          const explicit =
            (scheme === 'https' && port === ':443') || (scheme === 'http' && port === ':80');
          return `${scheme}://${host}${dot}${explicit ? port : ''}/r/abcdefg`;
        }),
      // The gateway's own origin, in the spellings of 127.0.0.1 a URL parser accepts.
      fc
        .constantFrom('127.0.0.1', '127.0.0.1.', '127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1')
        .map((host) => `http://${host}:${gatewayHost.port}/r/abcdefg`),
      // Any alias of this machine, on any port: loopback names, IP literals in any notation,
      // IPv6 and IPv4-mapped IPv6, the unspecified address.
      fc
        .tuple(
          fc.constantFrom(
            'localhost',
            'LocalHost.',
            'links.localhost',
            '%6c%6fcalhost',
            '0x7f000001',
            '127.0.0.2',
            '127.255.255.254',
            '0',
            '0.0.0.0',
            '0x0',
            '[::1]',
            '[0:0:0:0:0:0:0:1]',
            '[::]',
            '[::ffff:127.0.0.1]',
            '[::ffff:7f00:1]',
            '[::127.0.0.1]',
            '[::ffff:0.0.0.0]',
          ),
          fc.constantFrom('http', 'https'),
          fc.constantFrom('', `:${gatewayHost.port}`, ':80', ':8080', ':3000'),
          fc.constantFrom('/r/abcdefg', '/', '/profile', '/api/user'),
        )
        .map(([host, scheme, port, path]) => `${scheme}://${host}${port}${path}`),
    );
    await fc.assert(
      fc.asyncProperty(spellings, async (url) => {
        const response = await links.request('POST', '/internal/links', {
          identity: { userId: `hostile-loops-${run}` },
          body: { url, days: 7 },
        });
        note(response.status);
        if (response.status !== 403) throw new Error(`${url}: ${response.status}, not refused`);
      }),
      runs(300),
    );
  });

  it("links API: no identity reads, lists or deletes another's link, whatever the code looks like", async () => {
    const owner = { userId: `hostile-owner-${run}` };
    const other = { userId: `hostile-other-${run}` };
    const owned = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        createInternal(owner, `https://example.com/own/${run}/${i}`),
      ),
    );
    const code = fc.constantFrom(...owned.map((link) => link.urlID));
    const variant = fc.oneof(
      code,
      code.map((c) => c.toLowerCase()),
      fc.tuple(code, text).map(([c, rest]) => `${c}${encode(rest)}`),
      code.map((c) => `${c}%2F`),
      code.map((c) => `..%2F${c}`),
      code.map((c) => `${c}?x=1`),
      text.map(encode),
    );
    await fc.assert(
      fc.asyncProperty(
        variant,
        fc.constantFrom<'GET' | 'DELETE'>('GET', 'DELETE'),
        async (id, method) => {
          const response = await links.request(method, `/internal/links/${id}`, {
            identity: other,
          });
          note(response.status);
          const seen = JSON.stringify(response.body) ?? '';
          const leaked = owned.filter(
            (l) => seen.includes(l.urlID) || seen.includes(l.originalUrl),
          );
          // `GET /internal/links/` (an empty id) is the caller's own list: a 200 is right there.
          const allowed = method === 'GET' && leaked.length === 0;
          if (response.status >= 500 || leaked.length > 0 || (response.status < 400 && !allowed)) {
            throw new Error(`${method} ${id} as another user: ${response.status} ${short(seen)}`);
          }
        },
      ),
      runs(500),
    );
    const list = await links.call(internalApi.listLinks, { identity: other });
    expect(list.body).toEqual({ links: [], nextCursor: null, total: 0 });
    const mine = await links.call(internalApi.listLinks, { identity: owner });
    if (mine.status !== 200) throw new Error(`listing answered ${mine.status}`);
    expect(mine.body.links.map((l) => l.urlID).sort()).toEqual(owned.map((l) => l.urlID).sort());
  });

  it('ran its 2,300 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(2300);
  });
});
