import type { PublicRoute } from '@shortener/contracts';
import type { z } from 'zod';

/** What a schema from '@shortener/contracts' (or its web entry) offers: a parse that never throws. */
export interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

/** The parameters, query and body of a call, as far as a URL carries them. */
export interface RouteRequest {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
}

/**
 * An entry of publicApi as the web app holds it, without zod (vite/web-contracts.ts makes
 * them): its method, its path and the check of its success answer.
 */
export interface WebRoute<Request extends RouteRequest = RouteRequest, Answer = unknown> {
  readonly method: PublicRoute['method'];
  /** As publicApi writes it: `{name}` for a path parameter. */
  readonly path: string;
  /** The success answer's JSON check; none when it has no JSON body (204, a stream). */
  readonly answer?: Schema<Answer>;
  /** The media type of a success answer that is not JSON. */
  readonly streams?: string;
  /** Never set: what a call sends, for the types only. */
  readonly request?: Request;
}

/** A schema of the contracts as its web check: the same output, no zod. */
export type WebSchemaOf<S extends z.ZodType> = Schema<z.output<S>>;

type Success<E extends PublicRoute> = E['answers'][Extract<keyof E['answers'], 200 | 201 | 204>];

/** An entry of publicApi as its WebRoute: what it takes, as zod reads it, and what it answers. */
export type WebRouteOf<E extends PublicRoute> = WebRoute<
  {
    readonly [
      K in 'params' | 'query' | 'body' as K extends keyof E ? K : never
    ]: E[K] extends z.ZodType ? z.input<E[K]> : never;
  },
  Success<E> extends { body: { schema: infer S extends z.ZodType } } ? z.output<S> : undefined
>;

/** A call's URL: the entry's path with its parameters filled in, then the query given. */
export function routeUrl(route: WebRoute, request: RouteRequest = {}): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(request.params?.[name] ?? ''),
  );
  const query = Object.entries(request.query ?? {})
    .flatMap(([name, value]) =>
      value === undefined ? [] : [`${encodeURIComponent(name)}=${encodeURIComponent(value)}`],
    )
    .join('&');
  return query ? `${path}?${query}` : path;
}
