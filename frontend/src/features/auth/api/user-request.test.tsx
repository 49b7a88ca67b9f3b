import { screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';
import { startUserRequest } from './get-user';

describe('userData asked for ahead of the app (startUserRequest, src/user-request.ts)', () => {
  afterEach(() => {
    delete window.__userRequest;
  });

  it('sends the same call the app sends: the X-Requested-With header, same-origin cookies', () => {
    signIn();
    const fetchMock = mockFetch(() => jsonResponse(200, aUser()));
    startUserRequest();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/api/user');
    expect(init).toMatchObject({
      method: 'GET',
      credentials: 'same-origin',
      headers: { 'X-Requested-With': 'XMLHttpRequest' },
    });
  });

  it("serves the app's first load of a signed-in page: one request, not two", async () => {
    signIn();
    let answer: (response: Response) => void = () => undefined;
    const fetchMock = mockFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    startUserRequest();
    renderApp('/profile');
    expect(await screen.findByText('Loading....')).toBeTruthy();
    answer(jsonResponse(200, aUser()));
    expect(
      await screen.findByRole('heading', { level: 1, name: `${aUser().fullName}'s URLs` }),
    ).toBeTruthy();
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/user']);
  });

  it("gives the app the server's failure as its own request would: a 401 is the sign-in prompt", async () => {
    signIn();
    const fetchMock = mockFetch(() =>
      jsonResponse(401, { message: 'Unauthorized access', callBack: '/login' }),
    );
    startUserRequest();
    renderApp('/profile');
    expect(await screen.findByText('You must login first')).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('asks nothing when signed out or when userData is cached', () => {
    const fetchMock = mockFetch(() => jsonResponse(200, aUser()));
    startUserRequest();
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser()));
    startUserRequest();
    expect(fetchMock).not.toHaveBeenCalled();
    expect(window.__userRequest).toBeUndefined();
  });
});
