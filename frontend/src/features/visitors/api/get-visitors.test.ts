import { MESSAGES } from '@shortener/contracts';
import { describe, expect, it } from 'vitest';
import { aVisit } from '../../../test/fixtures';
import { jsonResponse, mockFetch } from '../../../test/http';
import { getVisitors } from './get-visitors';

describe('getVisitors (SPEC section 8)', () => {
  it('answers one page of visits and the cursor of the next one', async () => {
    const visits = [aVisit('v2'), aVisit('v1')];
    const fetchMock = mockFetch(() => jsonResponse(200, visits, { 'X-Next-Cursor': 'c-2' }));

    expect(await getVisitors('Ab3dE5g')).toMatchObject({
      ok: true,
      data: { visits, nextCursor: 'c-2' },
    });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/visitors/Ab3dE5g');
  });

  it('asks for the page after a cursor, and reports the last page', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, [aVisit('v0')]));

    expect(await getVisitors('Ab3dE5g', 'c 2/=')).toMatchObject({
      data: { nextCursor: null },
    });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/visitors/Ab3dE5g?cursor=c%202%2F%3D');
  });

  it('returns message and callBack on 401', async () => {
    mockFetch(() =>
      jsonResponse(401, { message: MESSAGES.unauthorized, callBack: '/login?from=%2Fprofile' }),
    );
    expect(await getVisitors('Ab3dE5g')).toMatchObject({
      ok: false,
      message: MESSAGES.unauthorized,
      callBack: '/login?from=%2Fprofile',
      signedOut: true,
    });
  });

  it("reads 'No visitors' on 404", async () => {
    mockFetch(() => jsonResponse(404, { message: 'Not found' }));
    expect(await getVisitors('Ab3dE5g')).toMatchObject({
      ok: false,
      status: 404,
      message: MESSAGES.noVisitors,
    });
  });

  it("reads 'Server error' for any other failure", async () => {
    mockFetch(() => jsonResponse(500, { message: 'Database down' }));
    expect(await getVisitors('Ab3dE5g')).toMatchObject({ message: MESSAGES.serverError });
  });
});
