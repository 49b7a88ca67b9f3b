import { webApi, type UserData } from '@shortener/contracts/web';
import { apiAnswer, sendRequest, type ApiResult, type FailurePolicy } from '../../../lib/api';
import { isSignedIn, readCachedUser } from '../../../lib/storage';

/** A 401 carries the server's message and callBack; anything else reads 'Server error'. */
const FAILURES: FailurePolicy = { showsServerMessage: (status) => status === 401 };

/** Where startUserRequest leaves its request for the app's first load. */
const STARTED = '__userRequest';

declare global {
  interface Window {
    [STARTED]?: Promise<Response>;
  }
}

/**
 * publicApi.getUser. The page's first load (`first`) takes the request startUserRequest made
 * ahead of the app, when there is one, instead of asking again.
 */
export function getUser({ first = false }: { first?: boolean } = {}): Promise<ApiResult<UserData>> {
  const started = first ? window[STARTED] : undefined;
  delete window[STARTED];
  return apiAnswer(webApi.getUser, FAILURES, started ?? sendRequest(webApi.getUser));
}

/**
 * Asks for userData while the page's HTML is read (src/user-request.ts, a script of its own
 * that the signed-in frames load before the app's), when the app's first load would ask for it:
 * signed in, no userData kept. The profile pages then draw the user's links as soon as the
 * app has run, rather than one request later.
 */
export function startUserRequest(): void {
  if (isSignedIn() && !readCachedUser()) window[STARTED] = sendRequest(webApi.getUser);
}
