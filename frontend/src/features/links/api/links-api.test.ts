import { MESSAGES } from '@shortener/contracts';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch } from '../../../test/http';
import { deleteLink } from './delete-link';
import { shortenUrl } from './shorten-url';

describe('shortenUrl (SPEC section 8)', () => {
  it('posts the encoded URL and the days in the query, without a body', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { url: 'Ab3dE5g', loggedIn: false }));

    const result = await shortenUrl('https://example.com/a b?x=1&y=2#top', 15);

    expect(result).toMatchObject({ ok: true, data: { url: 'Ab3dE5g', loggedIn: false } });
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe(
      '/api/shorten/?url=https%3A%2F%2Fexample.com%2Fa%20b%3Fx%3D1%26y%3D2%23top&days=15',
    );
    expect(init).toMatchObject({ method: 'POST' });
    expect(init?.body).toBeUndefined();
  });

  it("shows the server's message on 403", async () => {
    mockFetch(() => jsonResponse(403, { message: MESSAGES.loginForExpiry }));
    expect(await shortenUrl('https://example.com', 30)).toMatchObject({
      ok: false,
      message: MESSAGES.loginForExpiry,
    });
  });

  it("shows the server's message on 409 when an alias was chosen", async () => {
    mockFetch(() => jsonResponse(409, { message: 'Alias already taken' }));
    expect(await shortenUrl('https://example.com', 30, 'my-link')).toMatchObject({
      ok: false,
      status: 409,
      message: 'Alias already taken',
    });
  });

  it.each([400, 401, 404, 409, 413, 415, 422, 429])(
    "reads 'Server error' on %i, whatever the server's message",
    async (status) => {
      mockFetch(() =>
        jsonResponse(status, { message: 'Only http and https URLs can be shortened.' }),
      );
      expect(await shortenUrl('ftp://example.com', 7)).toMatchObject({
        ok: false,
        status,
        message: MESSAGES.serverError,
      });
    },
  );

  it("shows the server's message for every 403 refusal", async () => {
    for (const message of [
      'Only http and https URLs can be shortened.',
      'Too many links shortened: please wait 12 seconds, or sign in for a higher limit.',
    ]) {
      mockFetch(() => jsonResponse(403, { message }, { 'Retry-After': '12' }));
      expect(await shortenUrl('ftp://example.com', 7)).toMatchObject({ ok: false, message });
    }
  });

  it("reads 'Server error' for any other failure", async () => {
    mockFetch(() => jsonResponse(500, { message: 'relation "links" does not exist' }));
    expect(await shortenUrl('https://example.com', 7)).toMatchObject({
      message: MESSAGES.serverError,
    });

    mockFetch(() => new Response('not json', { status: 200 }));
    expect(await shortenUrl('https://example.com', 7)).toMatchObject({
      message: MESSAGES.serverError,
    });
  });
});

describe('deleteLink (SPEC section 8)', () => {
  it('posts to /api/delete/{urlID}', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, { loggedIn: true }));

    expect(await deleteLink('Ab3dE5g')).toMatchObject({ ok: true, data: { loggedIn: true } });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/delete/Ab3dE5g');
    expect(fetchMock.mock.calls[0]?.[1]).toMatchObject({ method: 'POST' });
  });

  it.each([401, 404, 500])("shows the server's message on %i", async (status) => {
    mockFetch(() => jsonResponse(status, { message: `Message for ${String(status)}` }));
    expect(await deleteLink('Ab3dE5g')).toMatchObject({
      ok: false,
      message: `Message for ${String(status)}`,
    });
  });

  it.each([400, 403, 502, 503])("reads 'Server error' on %i", async (status) => {
    mockFetch(() => jsonResponse(status, { message: 'Something else' }));
    expect(await deleteLink('Ab3dE5g')).toMatchObject({ message: MESSAGES.serverError });
  });

  it("reads 'Unexpected error occurred' when the answer cannot be read", async () => {
    mockFetch(() => new Response('not json', { status: 200 }));
    expect(await deleteLink('Ab3dE5g')).toMatchObject({
      ok: false,
      message: MESSAGES.unexpected,
    });
  });

  it("reads 'Cannot reach the server' when no answer comes (issue 37)", async () => {
    mockFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await deleteLink('Ab3dE5g')).toMatchObject({
      ok: false,
      message: 'Cannot reach the server',
      unreachable: true,
    });
  });
});
