// The shape of an internal endpoint, how one is declared and how a call's path is built.
import type { z } from 'zod';

/**
 * Each internal endpoint described once; caller and callee check bodies and answers against the
 * same schemas, so a malformed answer fails at the call rather than travelling on.
 */
export type InternalMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Answer schemas by HTTP status: the statuses a caller expects. */
export type InternalAnswers = Readonly<Record<number, z.ZodType>>;

/** The services that serve an internal API. */
export type InternalService = 'auth' | 'links' | 'analytics';

export interface InternalEndpoint<
  Route extends string = string,
  Query extends z.ZodObject | undefined = z.ZodObject | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Answers extends InternalAnswers = InternalAnswers,
  Streams extends string | undefined = string | undefined,
> {
  /** The service that serves it. */
  readonly service: InternalService;
  readonly method: InternalMethod;
  /** The path as the callee routes it, `:name` for a path parameter. */
  readonly route: Route;
  readonly query: Query;
  readonly body: Body;
  readonly answers: Answers;
  /**
   * Set for an endpoint whose success answer is a stream of this media type, not JSON (see
   * InternalClient.stream); its other answers are JSON as usual.
   */
  readonly streams?: Streams;
}

/** The `:name` parameters of a route. */
export type RouteParams<Route extends string> =
  Route extends `${string}:${infer Name}/${infer Rest}`
    ? Name | RouteParams<`/${Rest}`>
    : Route extends `${string}:${infer Name}`
      ? Name
      : never;

/** What a call of an endpoint takes besides the caller's identity. */
export type InternalCallInput<E extends InternalEndpoint> = ([RouteParams<E['route']>] extends [
  never,
]
  ? { params?: undefined }
  : { params: Record<RouteParams<E['route']>, string> }) &
  (E['query'] extends z.ZodObject ? { query?: z.input<E['query']> } : { query?: undefined }) &
  (E['body'] extends z.ZodType ? { body: z.input<E['body']> } : { body?: undefined });

/** An answer of an endpoint: one of its expected statuses, with its body as parsed. */
export type InternalAnswer<E extends InternalEndpoint> = {
  [Status in keyof E['answers'] & number]: {
    status: Status;
    body: z.output<E['answers'][Status]>;
  };
}[keyof E['answers'] & number];

/** An endpoint of the table, its types kept exact. */
export function endpoint<
  const Route extends string,
  Answers extends InternalAnswers,
  Query extends z.ZodObject | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
  const Streams extends string | undefined = undefined,
>(description: {
  service: InternalService;
  method: InternalMethod;
  route: Route;
  query?: Query;
  body?: Body;
  answers: Answers;
  streams?: Streams;
}): InternalEndpoint<Route, Query, Body, Answers, Streams> {
  return {
    service: description.service,
    method: description.method,
    route: description.route,
    query: description.query as Query,
    body: description.body as Body,
    answers: description.answers,
    ...(description.streams ? { streams: description.streams } : {}),
  };
}

/**
 * The path of one call: the route with its parameters filled in (percent-encoded) and the
 * query string of the defined values.
 */
export function internalPath(
  route: string,
  params: Readonly<Record<string, string>> = {},
  query: Readonly<Record<string, unknown>> = {},
): string {
  const path = route.replace(/:([A-Za-z]\w*)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route}: no value for :${name}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new Error(`${route}: the query value ${name} is not a string, number or boolean`);
    }
    search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}
