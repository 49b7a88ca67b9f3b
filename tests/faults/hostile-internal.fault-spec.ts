import fc from 'fast-check';
import { signInternalToken } from '@shortener/chassis';
import { type UserData } from '@shortener/contracts';
import { rawRequest, type RawResponse } from './support/raw-http';
import {
  alice,
  api,
  bob,
  cases,
  db,
  encode,
  gateway,
  note,
  ownedCount,
  redirectPort,
  run,
  runs,
  short,
  shortenAs,
  stack,
  useHostileStack,
  validHeaderText,
} from './support/hostile';

describe('hostile input: internal calls and ops endpoints: tokens, x-internal headers, /metrics', () => {
  useHostileStack();

  it("gateway: a client's x-internal-* headers, even a token validly signed for the request, are no identity (item 7)", async () => {
    const aliceCodes = await Promise.all(
      [0, 1].map((i) => shortenAs(alice, `https://example.com/internal7/${run}/${i}`)),
    );
    const bobCode = await shortenAs(bob, `https://example.com/bob7/${run}`);
    const ownerOf = async (code: string): Promise<string | null> => {
      const { rows } = await db!.query<{ owner_id: string | null }>(
        'SELECT owner_id FROM links.links WHERE code = $1',
        [code],
      );
      return rows[0]?.owner_id ?? null;
    };
    const aliceId = (await ownerOf(aliceCodes[0]!))!;
    const bobId = (await ownerOf(bobCode))!;
    const aliceOwns = await ownedCount(aliceId);
    const [code, deletable] = aliceCodes as [string, string];
    const routes: readonly (readonly [string, string, string?])[] = [
      ['GET', `/r/${code}`],
      ['GET', '/login'],
      ['GET', '/auth/google/callback?code=x&state=y'],
      ['POST', '/auth/local', 'name=alice'],
      ['GET', '/logout'],
      ['POST', '/logout'],
      ['GET', '/api/user'],
      ['GET', `/api/visitors/${code}`],
      ['POST', `/api/delete/${deletable}`],
      ['POST', `/api/shorten/?url=${encode(`https://example.com/forged7/${run}`)}&days=7`],
      // Past the proxied prefixes, to the services' internal routes.
      ['GET', '/auth/../internal/links'],
      ['GET', `/auth/..%2F..%2Finternal%2Flinks%2F${code}`],
      ['GET', `/r/../internal/links/${code}`],
      ['GET', `/r/..%2F..%2Finternal%2Fresolve%2F${code}`],
      ['POST', '/auth/../internal/sessions/lookup', '{}'],
      ['GET', '/api/../internal/links'],
    ];
    const headerName = fc.oneof(
      fc.constantFrom(
        'x-internal-token',
        'X-Internal-Token',
        'X-INTERNAL-TOKEN',
        'x-internal-user',
        'x-internal-user-id',
        'x-internal-identity',
        'X-Internal-Caller',
      ),
      fc
        .string({
          unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'),
          minLength: 1,
          maxLength: 12,
        })
        .map((suffix) => `x-internal-${suffix}`),
    );
    // What the header holds: a token signed now with the shared secret (for this very request,
    // for the internal call the gateway makes, for anyone), or what else a client may try.
    const headerValue = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          'signed here',
          'signed internal',
          'signed own link',
          'signed anonymous',
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom('alice id', 'identity json', 'forged') },
      { weight: 1, arbitrary: validHeaderText },
    );
    const tokenFor = (
      what: string,
      method: string,
      target: string,
      body: string | undefined,
    ): string => {
      const secret = stack!.secret;
      const aliceIdentity = { userId: aliceId };
      switch (what) {
        case 'signed here':
          return signInternalToken(secret, aliceIdentity, { method, path: target, body });
        case 'signed internal':
          return signInternalToken(secret, aliceIdentity, {
            method: 'GET',
            path: '/internal/links',
          });
        case 'signed own link':
          return signInternalToken(secret, aliceIdentity, {
            method: 'GET',
            path: `/internal/links/${code}`,
          });
        case 'signed anonymous':
          return signInternalToken(secret, { userId: null }, { method, path: target, body });
        case 'alice id':
          return aliceId;
        case 'identity json':
          return JSON.stringify(aliceIdentity);
        case 'forged':
          return `v2.${Buffer.from(aliceId).toString('base64url')}.${Date.now()}.${'a'.repeat(22)}.${'b'.repeat(43)}`;
        default:
          return what;
      }
    };
    const private_ = [aliceId, `internal7/${run}`, '"fullName":"Alice"'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(fc.tuple(headerName, headerValue), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('anonymous', 'bob'),
        async ([method, target, body], headers, who) => {
          const response = await api({
            method,
            target,
            headers: [
              // Bob's own sign-out would end the session the later cases use; an anonymous
              // one, allowed, ends nobody's (alice's session is checked at the end).
              ...(target === '/logout' && who === 'bob'
                ? [['Origin', 'https://evil.example'] as const]
                : []),
              ...(body?.startsWith('{')
                ? [['Content-Type', 'application/json'] as const]
                : body
                  ? [['Content-Type', 'application/x-www-form-urlencoded'] as const]
                  : []),
              ...headers.map(
                ([name, what]) => [name, tokenFor(what, method, target, body)] as const,
              ),
            ],
            ...(body === undefined ? {} : { body }),
            ...(who === 'bob' ? { as: bob } : {}),
          });
          note(response.status);
          const context = `${who} ${method} ${target} with ${headers.map(([n, v]) => `${n}: ${v}`).join(', ')}: ${response.status}`;
          if (response.status >= 500 || response.status <= 0)
            throw new Error(`${context} ${short(response.body)}`);
          const seen = private_.filter((piece) => response.body.includes(piece));
          if (seen.length > 0) throw new Error(`${context}: answered alice's ${seen.join(', ')}`);
          if (target === '/api/user') {
            const expected = who === 'bob' ? 200 : 401;
            if (response.status !== expected) throw new Error(`${context}, expected ${expected}`);
            if (who === 'bob' && (JSON.parse(response.body) as UserData).fullName !== 'Bob') {
              throw new Error(`${context}: not Bob's data`);
            }
          }
          if (target.startsWith('/api/visitors/') || target.startsWith('/api/delete/')) {
            if (response.status < 400) throw new Error(`${context}: another user's link`);
          }
          if (target.startsWith('/api/delete/') && (await ownedCount(aliceId)) !== aliceOwns) {
            throw new Error(`${context}: alice's link deleted`);
          }
          if (target.startsWith('/api/shorten/') && response.status === 201) {
            const created = (JSON.parse(response.body) as { url: string }).url;
            const owner = await ownerOf(created);
            if (owner !== (who === 'bob' ? bobId : null)) {
              throw new Error(`${context}: stored for ${owner}`);
            }
          }
        },
      ),
      runs(500),
    );
    expect(await ownedCount(aliceId)).toBe(aliceOwns);
    const stillAlice = await api({ target: '/api/user', as: alice });
    expect(stillAlice.status).toBe(200);
    expect((JSON.parse(stillAlice.body) as UserData).fullName).toBe('Alice');
  });

  it('links API: a signed internal token is good for its one request: not again, nor with another body, path, method, user, secret or time (item 7)', async () => {
    const owner = `hostile-tokens-${run}`;
    const secret = stack!.secret;
    let expected = await ownedCount(owner);
    const send = (token: string, body: string, method = 'POST', target = '/internal/links') =>
      rawRequest(stack!.get('links').port, {
        method,
        target,
        headers: [
          ['Content-Type', 'application/json'],
          ['X-Internal-Token', token],
        ],
        body,
      });
    const flip = (value: string, at: number): string => {
      const i = at % value.length;
      return `${value.slice(0, i)}${value[i] === 'A' ? 'B' : 'A'}${value.slice(i + 1)}`;
    };
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'again',
          'other body',
          'body re-encoded',
          'other path',
          'other method',
          'stale',
          'ahead',
          'other user',
          'other secret',
          'signature changed',
          'nonce changed',
        ),
        fc.nat(),
        fc.constantFrom(7, 15, 30, 60),
        async (how, at, days) => {
          const url = `https://example.com/tokens/${run}/${serial++}`;
          const body = JSON.stringify({ url, days });
          const sign = (
            over: Partial<{
              body: string;
              method: string;
              path: string;
              now: number;
              user: string | null;
              secret: string;
            }> = {},
          ): string =>
            signInternalToken(
              over.secret ?? secret,
              { userId: over.user === undefined ? owner : over.user },
              {
                method: over.method ?? 'POST',
                path: over.path ?? '/internal/links',
                body: over.body ?? body,
              },
              over.now ?? Date.now(),
            );
          let response: RawResponse;
          switch (how) {
            case 'again': {
              const token = sign();
              const first = await send(token, body);
              if (first.status !== 201)
                throw new Error(`the genuine request: ${first.status} ${first.body}`);
              expected += 1;
              response = await send(token, body);
              break;
            }
            case 'other body':
              response = await send(sign(), JSON.stringify({ url: `${url}/other`, days }));
              break;
            case 'body re-encoded':
              // The same JSON value in other bytes: the token covers the bytes.
              response = await send(sign(), JSON.stringify({ days, url }));
              break;
            case 'other path':
              response = await send(sign({ path: '/internal/links/' }), body);
              break;
            case 'other method':
              response = await send(sign({ method: 'GET' }), body);
              break;
            case 'stale':
              response = await send(sign({ now: Date.now() - 11_000 - (at % 50_000) }), body);
              break;
            case 'ahead':
              response = await send(sign({ now: Date.now() + 6_000 + (at % 50_000) }), body);
              break;
            case 'other user': {
              // The user part swapped for another's, the signature kept.
              const parts = sign().split('.');
              parts[1] = Buffer.from(`someone-else-${at}`).toString('base64url');
              response = await send(parts.join('.'), body);
              break;
            }
            case 'other secret':
              response = await send(sign({ secret: `${secret}x` }), body);
              break;
            case 'signature changed': {
              const parts = sign().split('.');
              parts[4] = flip(parts[4]!, at);
              response = await send(parts.join('.'), body);
              break;
            }
            default: {
              const parts = sign().split('.');
              parts[3] = flip(parts[3]!, at);
              response = await send(parts.join('.'), body);
              break;
            }
          }
          note(response.status);
          if (response.status !== 401)
            throw new Error(`${how}: ${response.status} ${short(response.body)}`);
          if ((await ownedCount(owner)) !== expected)
            throw new Error(`${how}: refused, but stored`);
        },
      ),
      runs(300),
    );
    // The request itself, signed for what it is, goes through: the refusals were the token's.
    const body = JSON.stringify({ url: `https://example.com/tokens/${run}/last`, days: 7 });
    const last = await send(
      signInternalToken(
        secret,
        { userId: owner },
        { method: 'POST', path: '/internal/links', body },
      ),
      body,
    );
    expect(last.status).toBe(201);
    expect(await ownedCount(owner)).toBe(expected + 1);
  });

  it('ops: /metrics and /readyz are not served to a request forwarded from outside, on the public ports (item 9)', async () => {
    // Straight from this machine they are (so the 404s below are the forwarding's doing).
    expect((await rawRequest(gateway.port, { target: '/metrics' })).status).toBe(200);
    expect((await rawRequest(redirectPort, { target: '/metrics' })).status).toBe(200);
    const forwarding = fc.tuple(
      fc.constantFrom(
        'X-Forwarded-For',
        'x-forwarded-for',
        'Forwarded',
        'FORWARDED',
        'X-Real-IP',
        'x-real-ip',
      ),
      fc.oneof(
        fc.constantFrom(
          '127.0.0.1',
          '::1',
          '::ffff:127.0.0.1',
          '10.0.0.1',
          '203.0.113.7',
          'for=127.0.0.1',
          'for="[::1]"',
          'unknown',
          '',
          ' ',
        ),
        fc.ipV4(),
        fc.ipV6(),
        validHeaderText,
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('gateway', 'redirect'),
        fc.constantFrom('/metrics', '/readyz', '/metrics?name=x', '/readyz?full=1'),
        fc.constantFrom('GET', 'HEAD'),
        fc.array(forwarding, { minLength: 1, maxLength: 3 }),
        async (service, target, method, headers) => {
          const port = service === 'gateway' ? gateway.port : redirectPort;
          const response = await rawRequest(port, { method, target, headers });
          note(response.status);
          if (response.status !== 404 || /# HELP|"checks"|process_cpu/.test(response.body)) {
            throw new Error(
              `${service} ${method} ${target}: ${response.status} ${short(response.body, 200)}`,
            );
          }
        },
      ),
      runs(300),
    );
  });

  it('ran its 1,100 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(1100);
  });
});
