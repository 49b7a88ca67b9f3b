import { MESSAGES, shortenResponseSchema } from '@shortener/contracts';
import { webApi } from '@shortener/contracts/web';
import { apiKeysApi } from '@shortener/contracts/web-api-keys';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch } from '../test/http';
import { apiRequest, type FailurePolicy } from './api';
import { routeUrl, type WebRoute } from './api-route';

const showsNothing: FailurePolicy = { showsServerMessage: () => false };
/** A call whose path and method do not matter to the test. */
const aCall: WebRoute = { method: 'GET', path: '/api/x', answer: shortenResponseSchema };

describe('apiRequest', () => {
  it('sends X-Requested-With and same-origin credentials', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));

    await apiRequest(webApi.shorten, showsNothing, { query: { url: 'x', days: '7' } });

    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/api/shorten/?url=x&days=7');
    expect(init?.method).toBe('POST');
    expect(init?.credentials).toBe('same-origin');
    expect(new Headers(init?.headers).get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(init?.body).toBeUndefined();
  });

  it('returns the parsed body and the headers on success', async () => {
    mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: true }, { 'X-Extra': 'yes' }));

    const result = await apiRequest(aCall, showsNothing);

    expect(result.ok && result.data).toEqual({ url: 'Ab3dE5g', loggedIn: true });
    expect(result.ok && result.headers.get('X-Extra')).toBe('yes');
  });

  it("shows the server's message only for the statuses the policy names", async () => {
    const policy: FailurePolicy = { showsServerMessage: (status) => status === 403 };
    mockFetch(() => jsonResponse(403, { message: 'Not for you.' }));
    expect(await apiRequest(aCall, policy)).toMatchObject({
      ok: false,
      status: 403,
      message: 'Not for you.',
    });

    mockFetch(() => jsonResponse(409, { message: 'Conflict.' }));
    expect(await apiRequest(aCall, policy)).toMatchObject({
      ok: false,
      status: 409,
      message: MESSAGES.serverError,
    });
  });

  it("reads 'Server error' when the error body has no message", async () => {
    const policy: FailurePolicy = { showsServerMessage: () => true };
    mockFetch(() => new Response('<html>Bad gateway</html>', { status: 502 }));

    expect(await apiRequest(aCall, policy)).toMatchObject({
      ok: false,
      status: 502,
      message: MESSAGES.serverError,
    });
  });

  it('prefers a fixed message for a status', async () => {
    const policy: FailurePolicy = { showsServerMessage: () => true, fixed: { 404: 'Gone' } };
    mockFetch(() => jsonResponse(404, { message: 'Not found' }));

    expect(await apiRequest(aCall, policy)).toMatchObject({
      message: 'Gone',
    });
  });

  it("never throws: a network failure reads 'Cannot reach the server', whatever the policy (issue 37)", async () => {
    mockFetch(() => Promise.reject(new TypeError('Failed to fetch')));

    expect(await apiRequest(aCall, showsNothing)).toEqual({
      ok: false,
      status: 0,
      message: 'Cannot reach the server',
      signedOut: false,
      unreachable: true,
    });
    expect(
      await apiRequest(aCall, {
        ...showsNothing,
        exception: MESSAGES.unexpected,
      }),
    ).toMatchObject({ message: 'Cannot reach the server', unreachable: true });
  });

  it('reads an unreadable success as the policy exception message, not as unreachable', async () => {
    mockFetch(() => new Response('<html>', { status: 200 }));
    const result = await apiRequest(aCall, {
      ...showsNothing,
      exception: MESSAGES.unexpected,
    });
    expect(result).toMatchObject({ ok: false, status: 200, message: MESSAGES.unexpected });
    expect(result).not.toHaveProperty('unreachable');
  });

  it("carries a refusal's Retry-After, in seconds", async () => {
    mockFetch(() => jsonResponse(403, { message: 'Too many' }, { 'Retry-After': '42' }));
    expect(await apiRequest(aCall, showsNothing)).toMatchObject({
      status: 403,
      retryAfter: 42,
    });
    mockFetch(() => jsonResponse(403, { message: 'Too many' }, { 'Retry-After': 'soon' }));
    expect(await apiRequest(aCall, showsNothing)).not.toHaveProperty('retryAfter');
  });

  it('treats a success with a body of the wrong shape as a failure', async () => {
    mockFetch(() => jsonResponse(200, { unexpected: true }));

    expect(await apiRequest(aCall, showsNothing)).toMatchObject({
      ok: false,
      message: MESSAGES.serverError,
    });
  });

  it("marks 401 and the message 'Unauthorized access' as signed out, keeping callBack", async () => {
    const policy: FailurePolicy = { showsServerMessage: () => true };
    mockFetch(() =>
      jsonResponse(401, { message: MESSAGES.unauthorized, callBack: '/login?from=%2Fprofile' }),
    );
    expect(await apiRequest(aCall, policy)).toEqual({
      ok: false,
      status: 401,
      message: MESSAGES.unauthorized,
      callBack: '/login?from=%2Fprofile',
      signedOut: true,
    });

    mockFetch(() => jsonResponse(403, { message: MESSAGES.unauthorized }));
    expect(await apiRequest(aCall, policy)).toMatchObject({
      signedOut: true,
    });

    mockFetch(() => jsonResponse(500, { message: 'Database down' }));
    expect(await apiRequest(aCall, policy)).toMatchObject({
      signedOut: false,
    });
  });
});

describe('a call made from its publicApi entry', () => {
  it('fills in the path parameters, encoded, and the query values given, in order', () => {
    expect(routeUrl(webApi.getVisitors, { params: { urlID: 'a b/c' } })).toBe(
      '/api/visitors/a%20b%2Fc',
    );
    expect(
      routeUrl(webApi.listLinks, { query: { cursor: 'x+y', q: undefined, sort: 'visits' } }),
    ).toBe('/api/links?cursor=x%2By&sort=visits');
  });

  it('sends its method and a JSON body', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, {}));

    await apiRequest(webApi.editLink, showsNothing, {
      params: { urlID: 'Ab3dE5g' },
      body: { days: 30 },
    });

    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/api/links/Ab3dE5g');
    expect(init?.method).toBe('PATCH');
    expect(new Headers(init?.headers).get('Content-Type')).toBe('application/json');
    expect(init?.body).toBe('{"days":30}');
  });

  it('takes an answer without a body as the success of a call that answers none (204)', async () => {
    const revoke = () =>
      apiRequest(apiKeysApi.revokeApiKey, showsNothing, { params: { keyId: 'AbCdE12345' } });
    mockFetch(() => new Response(null, { status: 204 }));
    expect(await revoke()).toMatchObject({ ok: true, data: undefined });

    mockFetch(() => jsonResponse(200, { unexpected: true }));
    expect(await revoke()).toMatchObject({ ok: false, message: MESSAGES.serverError });
  });
});
