import {
  INTERNAL_TOKEN_HEADER,
  internalPath,
  type InternalAnswer,
  type InternalCallInput,
  type InternalEndpoint,
  type InternalMethod,
} from '@shortener/contracts';
import type * as Undici from 'undici';
import { signInternalToken, type CallerIdentity } from './internal-auth';
import { REQUEST_ID_HEADER } from './logger';

let calls: { request: typeof Undici.request; dispatcher: Undici.Agent } | undefined;
/**
 * undici's request() on kept-alive connections of the process's own pool, loaded on its first
 * call: half the CPU of a fetch() a call (no WHATWG Request, Response, Headers or web stream
 * a call). A process that never calls another service never reads its code.
 */
function internalCalls(): NonNullable<typeof calls> {
  if (calls === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const undici = require('undici') as typeof Undici;
    calls = { request: undici.request, dispatcher: new undici.Agent() };
  }
  return calls;
}

/** An exchange as it came back, before any contract is applied: the status and the JSON. */
export interface InternalResponse {
  status: number;
  body: unknown;
}

/** The service could not be reached, did not answer in time, or answered something not JSON. */
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
 * The service answered, but not as its contract says: a status its callers do not expect,
 * or a body that does not match the schema of its status.
 */
export class InternalAnswerError extends Error {
  constructor(
    readonly service: string,
    readonly call: string,
    readonly status: number,
    reason: string,
  ) {
    super(`${service}: ${call} answered ${status}: ${reason}`);
    this.name = 'InternalAnswerError';
  }
}

/** A call this process was about to send breaks the callee's contract: a bug here. */
export class InternalRequestError extends Error {
  constructor(
    readonly service: string,
    readonly call: string,
    reason: string,
  ) {
    super(`${service}: ${call} not sent: ${reason}`);
    this.name = 'InternalRequestError';
  }
}

export interface CallOptions {
  identity?: CallerIdentity;
  requestId?: string;
}

/** What went wrong in the network, as one line. */
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}

/** The first problem zod found, as one line. */
function firstIssue(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }) {
  const issue = error.issues[0];
  if (!issue) return 'does not match';
  const where = issue.path.map(String).join('.');
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}

/**
 * How long a caller waits for another service's answer unless it says otherwise: a callee
 * need not work longer on an answer than this (nobody is waiting for it then).
 */
export const INTERNAL_CALL_TIMEOUT_MS = 3000;

/**
 * Calls another service's internal API with a signed token and the request id, so the
 * callee can trust the caller and the logs of both carry one id.
 */
export class InternalClient {
  constructor(
    private readonly service: string,
    private readonly baseUrl: string,
    private readonly secret: string,
    private readonly timeoutMs = INTERNAL_CALL_TIMEOUT_MS,
  ) {}

  /** The path of a call: its parameters filled in, its query checked against the entry's. */
  private pathOf<E extends InternalEndpoint>(endpoint: E, input: InternalCallInput<E>): string {
    let query: Record<string, unknown> | undefined;
    if (endpoint.query) {
      const checked = endpoint.query.safeParse(input.query ?? {});
      if (!checked.success) {
        const what = `${endpoint.method} ${endpoint.route}`;
        throw new InternalRequestError(this.service, what, `query ${firstIssue(checked.error)}`);
      }
      query = checked.data;
    }
    return internalPath(endpoint.route, input.params, query);
  }

  /**
   * One call of an endpoint of `internalApi` (@shortener/contracts): the body is checked
   * before it is sent, and the answer comes back parsed by the schema of its status.
   * Network failures and timeouts are InternalServiceError; a status the endpoint does not
   * list, or a body its schema refuses, is InternalAnswerError.
   */
  async call<E extends InternalEndpoint>(
    endpoint: E,
    input: InternalCallInput<E> & CallOptions,
  ): Promise<InternalAnswer<E>> {
    const what = `${endpoint.method} ${endpoint.route}`;
    if (endpoint.streams)
      throw new InternalRequestError(this.service, what, 'streams: use stream()');
    let body: unknown = undefined;
    if (endpoint.body) {
      const checked = endpoint.body.safeParse(input.body);
      if (!checked.success) {
        throw new InternalRequestError(this.service, what, `body ${firstIssue(checked.error)}`);
      }
      body = checked.data;
    }
    const path = this.pathOf(endpoint, input);
    const response = await this.request(endpoint.method, path, {
      identity: input.identity,
      requestId: input.requestId,
      body,
    });
    const schema = endpoint.answers[response.status];
    if (!schema) throw new InternalAnswerError(this.service, what, response.status, 'not expected');
    const parsed = schema.safeParse(response.body);
    if (!parsed.success) {
      throw new InternalAnswerError(
        this.service,
        what,
        response.status,
        `unexpected body (${firstIssue(parsed.error)})`,
      );
    }
    // Sound: the body was parsed by the schema the endpoint gives this very status.
    return { status: response.status, body: parsed.data } as InternalAnswer<E>;
  }

  /**
   * A call of an endpoint whose success answer is a stream (`streams`, say text/csv): that
   * answer comes back unread, its body a stream for the caller to pipe on; any other answer
   * is read and parsed as call() does. The timeout covers the wait for the answer to start,
   * not its length.
   */
  async stream<E extends InternalEndpoint>(
    endpoint: E,
    input: InternalCallInput<E> & CallOptions,
  ): Promise<
    { status: 200; body: ReadableStream<Uint8Array> } | Exclude<InternalAnswer<E>, { status: 200 }>
  > {
    const what = `${endpoint.method} ${endpoint.route}`;
    if (!endpoint.streams) throw new InternalRequestError(this.service, what, 'does not stream');
    const path = this.pathOf(endpoint, input);
    const started = new AbortController();
    const timer = setTimeout(() => started.abort(new Error('no answer in time')), this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method: endpoint.method,
        headers: {
          accept: `${endpoint.streams}, application/json`,
          [INTERNAL_TOKEN_HEADER]: signInternalToken(
            this.secret,
            input.identity ?? { userId: null },
            { method: endpoint.method, path },
          ),
          ...(input.requestId ? { [REQUEST_ID_HEADER]: input.requestId } : {}),
        },
        signal: started.signal,
      });
    } catch (error) {
      throw new InternalServiceError(this.service, causeOf(error));
    } finally {
      clearTimeout(timer);
    }
    const type = response.headers.get('content-type') ?? '';
    if (response.status === 200 && response.body && type.startsWith(endpoint.streams)) {
      return { status: 200, body: response.body };
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new InternalAnswerError(this.service, what, response.status, 'unexpected body');
    }
    const schema = response.status === 200 ? undefined : endpoint.answers[response.status];
    const parsed = schema?.safeParse(body);
    if (!parsed?.success) {
      throw new InternalAnswerError(this.service, what, response.status, 'not expected');
    }
    return { status: response.status, body: parsed.data } as Exclude<
      InternalAnswer<E>,
      { status: 200 }
    >;
  }

  /**
   * The raw exchange under call(), with no contract: whatever status and JSON came back.
   * For probes that must send what no contract allows (tests of the callee's defences).
   * Network failures, timeouts and a body that is not JSON are InternalServiceError.
   */
  async request(
    method: InternalMethod,
    path: string,
    options: { identity?: CallerIdentity; body?: unknown; requestId?: string } = {},
  ): Promise<InternalResponse> {
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
    let status: number;
    let text: string;
    try {
      // The deadline covers the whole exchange, the answer's body read included.
      const { request, dispatcher } = internalCalls();
      const response = await request(new URL(path, this.baseUrl), {
        dispatcher,
        method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw new InternalServiceError(this.service, causeOf(error));
    }
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw new InternalServiceError(
          this.service,
          `answered ${status} with a body that is not JSON`,
        );
      }
    }
    return { status, body };
  }
}
