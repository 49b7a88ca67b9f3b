import { INTERNAL_TOKEN_HEADER } from '@shortener/contracts';
import { signInternalToken, type CallerIdentity } from './internal-auth';
import { REQUEST_ID_HEADER } from './logger';

export interface InternalResponse<T> {
  status: number;
  body: T;
}

export class InternalServiceError extends Error {
  constructor(
    readonly service: string,
    message: string,
  ) {
    super(`${service}: ${message}`);
    this.name = 'InternalServiceError';
  }
}

/**
 * Calls another service's internal API with a signed token and the request id, so the
 * callee can trust the caller and the logs of both carry one id. Network failures and
 * timeouts become InternalServiceError; HTTP statuses are returned as they are.
 */
export class InternalClient {
  constructor(
    private readonly service: string,
    private readonly baseUrl: string,
    private readonly secret: string,
    private readonly timeoutMs = 3000,
  ) {}

  async request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: { identity?: CallerIdentity; body?: unknown; requestId?: string } = {},
  ): Promise<InternalResponse<T>> {
    // The token covers these exact bytes: serialised once, signed, sent as they are.
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      [INTERNAL_TOKEN_HEADER]: signInternalToken(
        this.secret,
        options.identity ?? { userId: null },
        { method, path, body: payload },
      ),
    };
    if (options.requestId) headers[REQUEST_ID_HEADER] = options.requestId;
    if (payload !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new InternalServiceError(
        this.service,
        error instanceof Error
          ? error.cause instanceof Error
            ? error.cause.message
            : error.message
          : String(error),
      );
    }
    const text = await response.text();
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw new InternalServiceError(
          this.service,
          `answered ${response.status} with a body that is not JSON`,
        );
      }
    }
    return { status: response.status, body: body as T };
  }
}
