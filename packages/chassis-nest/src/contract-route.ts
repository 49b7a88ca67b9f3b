import {
  applyDecorators,
  BadRequestException,
  createParamDecorator,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
  UseGuards,
  type ExecutionContext,
  type HttpException,
} from '@nestjs/common';
import type { Request } from 'express';
import { z } from 'zod';
import type {
  InternalEndpoint,
  NamedSchema,
  PageRoute,
  PublicRoute,
  RouteParams,
} from '@shortener/contracts';
import { InternalAuthGuard } from './internal-auth.guard';

/**
 * A handler bound to its contract entry (`publicApi`, `internalApi`, `signInApi`, `opsApi` of
 * @shortener/contracts): the entry gives the method, the path, the success status, the
 * schemas of the query and the body and the type of what the handler returns, so a route is
 * written once, in its entry.
 */

/** What a handler can be bound to: an entry of the public or the internal API, or a page's. */
export type ContractEntry = PublicRoute | InternalEndpoint | PageRoute;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206;

/**
 * What a handler returns for an answer: the JSON its schema outputs, or nothing for an answer
 * without a body (a 204) or one the handler writes itself (a stream, a page, through @Res()).
 */
type AnswerBody<Answer> = Answer extends z.ZodUndefined
  ? void
  : Answer extends z.ZodType
    ? z.output<Answer>
    : Answer extends { body: NamedSchema }
      ? z.output<Answer['body']['schema']>
      : void;

type Success<Entry extends ContractEntry> = Extract<keyof Entry['answers'], SuccessStatus>;

/**
 * What a handler bound to `Entry` returns: the body of the entry's success (2xx) answer;
 * nothing for a route that only redirects.
 */
export type RouteAnswer<Entry extends ContractEntry> = number extends keyof Entry['answers']
  ? unknown // an entry typed as any entry: nothing to check against
  : [Success<Entry>] extends [never]
    ? void
    : Entry extends { streams?: infer Media } // an internal endpoint's stream
      ? [Media] extends [string]
        ? void
        : AnswerBody<Entry['answers'][Success<Entry>]>
      : AnswerBody<Entry['answers'][Success<Entry>]>;

/** A handler that answers as its entry says, at once or later. */
export type RouteHandler<Entry extends ContractEntry> = (
  ...args: never[]
) => RouteAnswer<Entry> | Promise<RouteAnswer<Entry>>;

/**
 * A decorator of handlers bound to `Entry`: a method whose return type is not the entry's
 * answer does not compile (the decorator cannot be applied to it).
 */
export type RouteDecorator<Entry extends ContractEntry> = <Method extends RouteHandler<Entry>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<Method>,
) => void;

/** How an input the entry's schemas refuse is answered, from the first problem found. */
export type Refusal = (issue: z.core.$ZodIssue) => HttpException;

interface Binding {
  readonly entry: ContractEntry;
  readonly query?: z.ZodType;
  readonly refuse: Refusal;
}

const BINDING = Symbol('contract-route');

/** The default: 400 with the problem's message. */
const badRequest: Refusal = (issue) => new BadRequestException(issue.message);

/** The path as Nest routes it: `:name` parameters, no trailing '/'. */
export function nestPath(entry: ContractEntry): string {
  const path = 'route' in entry ? entry.route : entry.path.replace(/\{(\w+)\}/g, ':$1');
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}

/**
 * The status of the entry's success answer: its first 2xx, or for a route that only
 * redirects (sign-in's), its first 3xx.
 */
export function successStatus(entry: ContractEntry): number {
  const statuses = Object.keys(entry.answers).map(Number);
  const status =
    statuses.find((code) => code >= 200 && code < 300) ??
    statuses.find((code) => code >= 300 && code < 400);
  if (status === undefined) throw new Error(`${nestPath(entry)}: no 2xx or 3xx answer`);
  return status;
}

/** The type a field reads, under optional, default, catch, nullable and a transform. */
function baseType(schema: z.ZodType): string {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  return inner ? baseType(inner) : def.type;
}

/** Query strings as their field's type: digits as a number, true/false as a boolean. */
function fromQueryString(type: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (type === 'number' && /^\d{1,15}$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The entry's query schema, taking each field from the string a query string carries. */
function queryFromStrings(schema: z.ZodObject): z.ZodType {
  return z.object(
    Object.fromEntries(
      Object.entries(schema.shape).map(([name, field]) => {
        const type = baseType(field as z.ZodType);
        return [
          name,
          type === 'number' || type === 'boolean'
            ? z.preprocess((value) => fromQueryString(type, value), field as z.ZodType)
            : field,
        ];
      }),
    ),
  );
}

/**
 * Binds a handler to its contract entry: the method and path, the success status, and the
 * internal-token guard for an internal endpoint. `refuse` answers a query or body the
 * entry's schemas refuse (by default 400 with the problem's message).
 */
export function Route<const Entry extends ContractEntry>(
  entry: Entry,
  refuse: Refusal = badRequest,
): RouteDecorator<Entry> {
  const binding: Binding = {
    entry,
    refuse,
    ...(entry.query ? { query: queryFromStrings(entry.query) } : {}),
  };
  return applyDecorators(
    RequestMapping({ path: nestPath(entry), method: RequestMethod[entry.method] }),
    HttpCode(successStatus(entry)),
    SetMetadata(BINDING, binding),
    ...('service' in entry ? [UseGuards(InternalAuthGuard)] : []),
  );
}

/** The names of an entry's path parameters. */
type ParamName<Entry extends ContractEntry> = Entry extends InternalEndpoint
  ? RouteParams<Entry['route']>
  : Entry extends { params: z.ZodObject }
    ? keyof Entry['params']['shape'] & string
    : never;

/** What a handler bound by @Route receives: the path parameters, the query and the body. */
export interface RouteInput<Entry extends ContractEntry> {
  /** As they are in the path: a malformed one is answered like an unknown one, by the handler. */
  params: Record<ParamName<Entry>, string>;
  query: Entry['query'] extends z.ZodObject ? z.output<Entry['query']> : undefined;
  body: Entry['body'] extends z.ZodType ? z.output<Entry['body']> : undefined;
}

function parse(schema: z.ZodType | undefined, value: unknown, refuse: Refusal): unknown {
  if (!schema) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw refuse(issue ?? { code: 'custom', message: 'Invalid request', path: [], input: value });
}

/** The input of a handler bound by @Route, its query and body parsed by the entry's schemas. */
export const Input = createParamDecorator(
  (_: unknown, context: ExecutionContext): RouteInput<ContractEntry> => {
    const binding = Reflect.getMetadata(BINDING, context.getHandler()) as Binding | undefined;
    if (!binding) throw new Error(`${context.getHandler().name}: @Input() without @Route()`);
    const req = context.switchToHttp().getRequest<Request>();
    return {
      params: req.params,
      query: parse(binding.query, req.query, binding.refuse) as never,
      body: parse(binding.entry.body, req.body, binding.refuse) as never,
    };
  },
);

/** The entry a handler is bound to, or undefined: for a test that each entry has a handler. */
export function boundEntry(handler: unknown): ContractEntry | undefined {
  if (typeof handler !== 'function') return undefined;
  return (Reflect.getMetadata(BINDING, handler) as Binding | undefined)?.entry;
}
