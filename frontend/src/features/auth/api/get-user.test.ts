import { MESSAGES } from '@shortener/contracts';
import { describe, expect, it } from 'vitest';
import { aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch } from '../../../test/http';
import { getUser } from './get-user';

describe('getUser (SPEC section 8)', () => {
  it('answers the user data', async () => {
    const user = aUser();
    const fetchMock = mockFetch(() => jsonResponse(200, user));

    expect(await getUser()).toMatchObject({ ok: true, data: user });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/user');
    expect(fetchMock.mock.calls[0]?.[1]).toMatchObject({ method: 'GET' });
  });

  it("returns the server's message and callBack on 401, as signed out", async () => {
    mockFetch(() =>
      jsonResponse(401, { message: MESSAGES.unauthorized, callBack: '/login?from=%2Fprofile' }),
    );
    expect(await getUser()).toEqual({
      ok: false,
      status: 401,
      message: MESSAGES.unauthorized,
      callBack: '/login?from=%2Fprofile',
      signedOut: true,
    });
  });

  it("reads 'Server error' for any other failure", async () => {
    mockFetch(() => jsonResponse(500, { message: 'Database down' }));
    expect(await getUser()).toMatchObject({ message: MESSAGES.serverError, signedOut: false });

    mockFetch(() => jsonResponse(200, { fullName: 'Missing the rest' }));
    expect(await getUser()).toMatchObject({ ok: false, message: MESSAGES.serverError });
  });
});
