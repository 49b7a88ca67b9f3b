import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { type UserData } from '@shortener/contracts';
import { rawRequest } from './support/raw-http';
import {
  alice,
  api,
  bob,
  carol,
  cases,
  checkAnswer,
  db,
  encode,
  gateway,
  headerText,
  inTarget,
  note,
  ownedCount,
  redirectPort,
  run,
  runs,
  shortenAs,
  stack,
  text,
  toUsOrProvider,
  urlLike,
  useHostileStack,
  provider,
} from './support/hostile';

describe("hostile input: gateway: shorten, any header, any body, no one else's links", () => {
  useHostileStack();

  it('gateway: shorten refuses what it must, stores nothing when it refuses, never fails', async () => {
    const aliceCode = await shortenAs(alice, `https://example.com/alice/${run}`);
    const { rows } = await db!.query<{ owner_id: string }>(
      'SELECT owner_id FROM links.links WHERE code = $1',
      [aliceCode],
    );
    const aliceId = rows[0]!.owner_id;
    let expected = await ownedCount(aliceId);
    const extra = fc.array(
      fc.tuple(
        fc.constantFrom(
          'url',
          'days',
          'url[]',
          'url[0]',
          'days[]',
          '__proto__',
          'constructor',
          'x',
        ),
        text,
      ),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        urlLike,
        fc.option(fc.oneof(fc.constantFrom('7', '15', '30', '60', '45', '-1', '1e9', ''), text)),
        extra,
        fc.boolean(),
        fc.constantFrom('alice', 'anonymous', 'no-header'),
        async (url, days, params, raw, who) => {
          const query = [
            `url=${inTarget(url, raw)}`,
            ...(days === null ? [] : [`days=${encode(days)}`]),
            ...params.map(([key, value]) => `${encode(key)}=${encode(value)}`),
          ].join('&');
          const response = await api({
            method: 'POST',
            target: `/api/shorten/?${query}`,
            ...(who === 'alice' ? { as: alice } : {}),
            requestedWith: who !== 'no-header',
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: url });
          // Without the header nothing is done (403; 400 when the request itself is malformed).
          if (who === 'no-header' && response.status < 400) {
            throw new Error(`no X-Requested-With but ${response.status}`);
          }
          if (who !== 'alice') return;
          if (response.status === 201) expected += 1;
          else if ((await ownedCount(aliceId)) !== expected) {
            throw new Error(`${JSON.stringify(url)}: refused with ${response.status} but stored`);
          }
        },
      ),
      runs(1500),
    );
  });

  it('gateway: any header value, oversized or repeated parameters, on any route: no failure', async () => {
    const authorize = new URL(provider!.authorizationUrl);
    const route = fc.constantFrom(
      ['GET', '/api/user'],
      ['POST', '/api/shorten/'],
      ['GET', '/api/visitors/abcdefg'],
      ['POST', '/api/delete/abcdefg'],
      ['GET', '/r/abcdefg'],
      ['GET', '/login'],
      ['GET', '/logout'],
      ['GET', '/'],
      ['GET', '/api/docs'],
    );
    const headerName = fc.constantFrom(
      'X-Requested-With',
      'X-Forwarded-For',
      'X-Forwarded-Host',
      'X-Forwarded-Proto',
      'Origin',
      'Referer',
      'User-Agent',
      'Accept',
      'Accept-Language',
      'Content-Type',
      'X-Request-Id',
      'Cookie',
    );
    // Many parameters, names repeated, and now and then one far over any limit.
    const huge = fc.nat({ max: 40_000 }).map((n) => 'x'.repeat(n));
    const params = fc.array(
      fc.tuple(
        fc.constantFrom('url', 'days', 'from', 'cursor', 'q'),
        fc.oneof({ weight: 9, arbitrary: text }, { weight: 1, arbitrary: huge }),
      ),
      { maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.array(
          fc.tuple(
            headerName,
            fc.oneof({ weight: 9, arbitrary: headerText }, { weight: 1, arbitrary: huge }),
          ),
          { maxLength: 4 },
        ),
        params,
        fc.boolean(),
        async ([method, path], headers, query, signedIn) => {
          const target = `${path}?${query.map(([k, v]) => `${k}=${encode(v)}`).join('&')}`;
          const response = await api({
            method,
            target,
            headers,
            ...(signedIn ? { as: carol } : {}),
          });
          note(response.status);
          // Each value on its own for the echo check; the empty one checks the answer at least once.
          for (const value of ['', ...[...headers, ...query].map(([, v]) => v)]) {
            checkAnswer(response, gateway.origin, {
              input: value,
              mayRedirectTo: (location) => toUsOrProvider(location, gateway.origin, authorize),
            });
          }
        },
      ),
      runs(800),
    );
  });

  it("gateway: no user reads, lists or deletes another user's link", async () => {
    const owned = await Promise.all(
      Array.from({ length: 3 }, (_, i) => shortenAs(alice, `https://example.com/mine/${run}/${i}`)),
    );
    const code = fc.constantFrom(...owned);
    const id = fc.oneof(
      code,
      code.map((c) => c.toLowerCase()),
      fc.tuple(code, text).map(([c, rest]) => `${c}${encode(rest)}`),
      code.map((c) => `${c}%2F`),
      code.map((c) => `..%2F${c}`),
      code.map((c) => `${encodeURIComponent(c)}%00`),
      code.map((c) => `${c}?cursor=x`),
      text.map(encode),
    );
    await fc.assert(
      fc.asyncProperty(
        id,
        fc.constantFrom(['GET', '/api/visitors/'], ['POST', '/api/delete/']),
        fc.constantFrom('bob', 'anonymous'),
        async (value, [method, route], who) => {
          const response = await api({
            method,
            target: `${route}${value}`,
            ...(who === 'bob' ? { as: bob } : {}),
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: value });
          if (response.status < 400)
            throw new Error(`${who} ${method} ${route}${value}: ${response.status}`);
        },
      ),
      runs(600),
    );
    const seenByBob = JSON.parse((await api({ target: '/api/user', as: bob })).body) as UserData;
    expect(seenByBob.urls.filter((link) => owned.includes(link.urlID))).toEqual([]);
    const seenByAlice = JSON.parse(
      (await api({ target: '/api/user', as: alice })).body,
    ) as UserData;
    expect(owned.filter((c) => !seenByAlice.urls.some((link) => link.urlID === c))).toEqual([]);
    for (const c of owned) {
      const redirect = await rawRequest(redirectPort, { target: `/r/${c}` });
      expect(redirect.status).toBe(302);
    }
  });

  it('any body, in any encoding, on any route: never a failure; too large 413, undecodable 400, unknown encoding 415', async () => {
    const LIMIT = 16 * 1024;
    const DECODED = ['identity', 'gzip', 'deflate', 'br'];
    const compress = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
    const payload = fc.oneof(
      fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
      fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
      text.map((value) => Buffer.from(value)),
      fc.integer({ min: LIMIT - 64, max: 3 * LIMIT }).map((n) => Buffer.from(`"${'a'.repeat(n)}"`)),
    );
    const encoding = fc.constantFrom(
      '',
      'identity',
      'gzip',
      'deflate',
      'br',
      'GZIP',
      'xz',
      'gzip, gzip',
    );
    // How the bytes sent relate to the encoding named: compressed as named, cut short, or garbage.
    const wire = fc.constantFrom('as-named', 'truncated', 'garbage');
    const route = fc.constantFrom(
      ['gateway', 'POST', '/api/shorten/?url=https%3A%2F%2Fexample.com%2F'],
      ['gateway', 'POST', '/api/delete/abcdefg'],
      ['gateway', 'GET', '/api/user'],
      ['gateway', 'GET', '/api/visitors/abcdefg'],
      ['gateway', 'POST', '/auth/local'],
      ['gateway', 'POST', '/logout'],
      ['links', 'POST', '/internal/links'],
      ['analytics', 'POST', '/internal/visits/counts'],
      ['auth', 'POST', '/internal/sessions/lookup'],
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/octet-stream',
      'application/json; charset=utf-16',
    );
    await fc.assert(
      fc.asyncProperty(
        route,
        payload,
        encoding,
        wire,
        contentType,
        fc.boolean(),
        async ([service, method, target], body, named, how, type, forged) => {
          const name = named.trim().toLowerCase() || 'identity';
          let sent = body;
          let damaged = how === 'garbage';
          if (damaged) sent = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), body]);
          else if (name in compress) sent = compress[name as keyof typeof compress](body);
          if (how === 'truncated' && sent.length > 1) {
            sent = sent.subarray(0, sent.length >> 1);
            damaged = true;
          }
          const port = service === 'gateway' ? gateway.port : stack!.get(service).port;
          const response = await rawRequest(port, {
            method,
            target,
            headers: [
              ['X-Requested-With', 'XMLHttpRequest'],
              ['Origin', gateway.origin],
              ['Content-Type', type],
              ...(named === '' ? [] : [['Content-Encoding', named] as const]),
              // A client's internal token is dropped by the gateway, refused by a service.
              ...(forged ? [['X-Internal-Token', `v2.${'a'.repeat(40)}`] as const] : []),
            ],
            body: sent,
          });
          note(response.status);
          checkAnswer(response, gateway.origin, { input: '' });
          const context = `${service} ${method} ${target} ${named} ${how}: ${response.status}`;
          if (service !== 'gateway' && response.status < 400) {
            throw new Error(`${context}: an internal call without a valid token was taken`);
          }
          if (service !== 'gateway' || !target.startsWith('/api/')) return;
          // /api reads every body, behind the rate limit, whatever its type.
          if (sent.length === 0) return;
          let expected: number[] = [];
          if (sent.length > LIMIT) expected = [413];
          else if (!DECODED.includes(name)) expected = [415];
          // A cut or garbled stream fails to decode, unless its first part inflates past the limit.
          else if (name !== 'identity' && damaged)
            expected = body.length > LIMIT ? [400, 413] : [400];
          // Compressed as named: what counts is the size it inflates to.
          else if (name !== 'identity' && body.length > LIMIT) expected = [413];
          if (expected.length === 0) return;
          if (!expected.includes(response.status)) {
            throw new Error(
              `${context}, expected ${expected.join(' or ')}: ${response.body.slice(0, 200)}`,
            );
          }
          if (!/^\{"message":"[^"]+"\}$/.test(response.body)) {
            throw new Error(`${context}: not the {message} shape: ${response.body.slice(0, 200)}`);
          }
        },
      ),
      runs(600),
    );
  });

  it('ran its 3,500 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(3500);
  });
});
