import { z } from 'zod';
import {
  codesRequestSchema,
  createLinkRequestSchema,
  internalLinkSchema,
  linkListSchema,
  resolvedLinkSchema,
  visitCountsSchema,
  visitsPageSchema,
  VISITS_PAGE_MAX,
} from './internal';
import { currentSessionSchema, sessionLookupSchema } from './sessions';

/**
 * Each internal endpoint described once: how to call it and what each answer its callers
 * handle looks like. The caller's client sends the request body only if it matches
 * `body` and parses every answer with the schema of its status, so a malformed answer is
 * an error at the call, never a value passed on; the callee validates with the same
 * schemas.
 */
export type InternalMethod = 'GET' | 'POST' | 'DELETE';

/** Answer schemas by HTTP status: the statuses a caller expects. */
export type InternalAnswers = Readonly<Record<number, z.ZodType>>;

/** The services that serve an internal API. */
export type InternalService = 'auth' | 'links' | 'analytics';

export interface InternalEndpoint<
  Route extends string = string,
  Query extends z.ZodObject | undefined = z.ZodObject | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Answers extends InternalAnswers = InternalAnswers,
> {
  /** The service that serves it. */
  readonly service: InternalService;
  readonly method: InternalMethod;
  /** The path as the callee routes it, `:name` for a path parameter. */
  readonly route: Route;
  readonly query: Query;
  readonly body: Body;
  readonly answers: Answers;
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

function endpoint<
  const Route extends string,
  Answers extends InternalAnswers,
  Query extends z.ZodObject | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
>(description: {
  service: InternalService;
  method: InternalMethod;
  route: Route;
  query?: Query;
  body?: Body;
  answers: Answers;
}): InternalEndpoint<Route, Query, Body, Answers> {
  return {
    service: description.service,
    method: description.method,
    route: description.route,
    query: description.query as Query,
    body: description.body as Body,
    answers: description.answers,
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

/** A refusal: every 4xx an internal API answers carries a message. */
export const internalErrorSchema = z.object({ message: z.string() });
export type InternalError = z.infer<typeof internalErrorSchema>;

/** A 204: no body at all. */
export const noContentSchema = z.undefined();

/** GET /internal/visits/:code: the page size (1 to VISITS_PAGE_MAX) and where it starts. */
export const visitsPageQuerySchema = z.object({
  limit: z.number().int().min(1).max(VISITS_PAGE_MAX).optional(),
  cursor: z.string().optional(),
});
export type VisitsPageQuery = z.infer<typeof visitsPageQuerySchema>;

export const visitsDeletedSchema = z.object({ deleted: z.number().int().nonnegative() });
export type VisitsDeleted = z.infer<typeof visitsDeletedSchema>;

/**
 * Every internal call of the system. Each service's controller routes `route` under the
 * given method; the callers are named beside each.
 */
export const internalApi = {
  // links service
  /** The gateway shortens: 400 for input the page never sends, 403 for a refused URL. */
  createLink: endpoint({
    service: 'links',
    method: 'POST',
    route: '/internal/links',
    body: createLinkRequestSchema,
    answers: { 201: internalLinkSchema, 400: internalErrorSchema, 403: internalErrorSchema },
  }),
  /** The gateway lists the caller's live links. */
  listLinks: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/links',
    answers: { 200: linkListSchema },
  }),
  /** The gateway checks that the caller owns a link; another's answers like an unknown one. */
  getLink: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/links/:code',
    answers: { 200: internalLinkSchema, 404: internalErrorSchema },
  }),
  /** The gateway deletes one of the caller's links. */
  deleteLink: endpoint({
    service: 'links',
    method: 'DELETE',
    route: '/internal/links/:code',
    answers: { 204: noContentSchema, 404: internalErrorSchema },
  }),
  /** The redirect service finds any live link. */
  resolveLink: endpoint({
    service: 'links',
    method: 'GET',
    route: '/internal/resolve/:code',
    answers: { 200: resolvedLinkSchema, 404: internalErrorSchema },
  }),

  // analytics service
  /** The gateway reads a page of a link's visits, newest first; 400 for a bad cursor. */
  visitsPage: endpoint({
    service: 'analytics',
    method: 'GET',
    route: '/internal/visits/:code',
    query: visitsPageQuerySchema,
    answers: { 200: visitsPageSchema, 400: internalErrorSchema },
  }),
  /** The gateway counts the visits of up to 1000 links. */
  visitCounts: endpoint({
    service: 'analytics',
    method: 'POST',
    route: '/internal/visit-counts',
    body: codesRequestSchema,
    answers: { 200: visitCountsSchema },
  }),
  /** The links service has the visits of removed links deleted. */
  deleteVisits: endpoint({
    service: 'analytics',
    method: 'POST',
    route: '/internal/visits/delete',
    body: codesRequestSchema,
    answers: { 200: visitsDeletedSchema },
  }),

  // auth service
  /** The gateway resolves a session cookie; forged, unknown or expired: 404. */
  lookUpSession: endpoint({
    service: 'auth',
    method: 'POST',
    route: '/internal/sessions/lookup',
    body: sessionLookupSchema,
    answers: { 200: currentSessionSchema, 404: internalErrorSchema },
  }),
} as const;

export type InternalApi = typeof internalApi;
