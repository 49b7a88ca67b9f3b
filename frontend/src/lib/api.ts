import {
  MESSAGES,
  REQUESTED_WITH_HEADER,
  REQUESTED_WITH_VALUE,
  errorResponseSchema,
} from '@shortener/contracts/web';
import { routeUrl, type RouteRequest, type WebRoute } from './api-route';

/**
 * What a request reads when no answer came at all (the network or the server is down): not
 * one of SPEC's messages, which are about what the server answered.
 */
export const UNREACHABLE = 'Cannot reach the server';

export interface ApiSuccess<T> {
  ok: true;
  data: T;
  headers: Headers;
}

export interface ApiFailure {
  ok: false;
  /** The HTTP status, or 0 when no usable answer arrived. */
  status: number;
  /** What the user is shown, per SPEC section 8. */
  message: string;
  /** Where to sign in again, when the server says so (401). */
  callBack?: string;
  /** The server does not know this session: 401 or the message 'Unauthorized access'. */
  signedOut: boolean;
  /** No answer came (the request threw): worth asking again once the server is back. */
  unreachable?: true;
  /** The seconds a rate limit asks to wait (its Retry-After), when it says. */
  retryAfter?: number;
}

export type ApiResult<T> = ApiSuccess<T> | ApiFailure;

/** How one call turns a failure into a message (one row group of the error catalogue). */
export interface FailurePolicy {
  /** Statuses whose own `message` is shown; any other failure reads 'Server error'. */
  showsServerMessage: (status: number) => boolean;
  /** Fixed messages for particular statuses, e.g. 404 → 'No visitors'. */
  fixed?: Readonly<Partial<Record<number, string>>>;
  /** What an answer with an unreadable body reads as. */
  exception?: string;
}

/**
 * The one way the browser talks to the API: a call of a publicApi entry (its path, method and
 * answer check), same-origin cookies, the X-Requested-With header the gateway requires, and
 * failures mapped to SPEC section 8. Never throws.
 */
export function apiRequest<Request extends RouteRequest, Answer>(
  route: WebRoute<Request, Answer>,
  policy: FailurePolicy,
  ...[request]: object extends Request ? [request?: Request] : [request: Request]
): Promise<ApiResult<Answer>> {
  return apiAnswer(route, policy, sendRequest(route, request));
}

/** A call of `route` as apiRequest sends it: the request, not yet its reading. */
export function sendRequest(route: WebRoute, request?: RouteRequest): Promise<Response> {
  const payload = request?.body;
  try {
    return fetch(routeUrl(route, request), {
      method: route.method,
      credentials: 'same-origin',
      headers: {
        [REQUESTED_WITH_HEADER]: REQUESTED_WITH_VALUE,
        Accept: 'application/json',
        ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * What a call of `route` came to, from its response (sendRequest's): its answer checked, or
 * its failure mapped to SPEC section 8. Never throws.
 */
export async function apiAnswer<Answer>(
  route: WebRoute<RouteRequest, Answer>,
  policy: FailurePolicy,
  sent: Promise<Response>,
): Promise<ApiResult<Answer>> {
  const unexpected = policy.exception ?? MESSAGES.serverError;
  let response: Response;
  try {
    response = await sent;
  } catch {
    return { ok: false, status: 0, message: UNREACHABLE, signedOut: false, unreachable: true };
  }

  const body = await readJson(response);
  if (response.ok) {
    // An answer without a JSON body (204) has none to read.
    const parsed = route.answer
      ? route.answer.safeParse(body)
      : { success: body === undefined, data: undefined as Answer };
    return parsed.success
      ? { ok: true, data: parsed.data, headers: response.headers }
      : { ok: false, status: response.status, message: unexpected, signedOut: false };
  }

  const parsedError = errorResponseSchema.safeParse(body);
  const error = parsedError.success ? parsedError.data : undefined;
  const fixed = policy.fixed?.[response.status];
  const serverMessage = policy.showsServerMessage(response.status) ? error?.message : undefined;
  const retryAfter = Number(response.headers.get('Retry-After') ?? '');
  return {
    ok: false,
    status: response.status,
    message: fixed ?? serverMessage ?? MESSAGES.serverError,
    ...(error?.callBack === undefined ? {} : { callBack: error.callBack }),
    signedOut: response.status === 401 || error?.message === MESSAGES.unauthorized,
    ...(Number.isInteger(retryAfter) && retryAfter > 0 ? { retryAfter } : {}),
  };
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}
