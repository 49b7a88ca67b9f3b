import { RequestMethod, type DynamicModule, type Type } from '@nestjs/common';
import {
  GUARDS_METADATA,
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  MODULE_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants';
import { internalApi, type InternalService } from '@shortener/contracts';

/**
 * The routes an application's controllers serve, read from their decorators (no app is
 * started), so a test can hold them to the routes a contract lists.
 */

/** One route a Nest controller serves, as its decorators declare it. */
export interface NestRoute {
  method: string;
  /** From '/', `:name` for a path parameter, without a trailing '/'. */
  path: string;
  /** The status of its answer when it succeeds (@HttpCode, else Nest's default). */
  status: number;
  guards: unknown[];
  controller: string;
}

type ModuleRef = Type | DynamicModule;

const isDynamic = (module: ModuleRef): module is DynamicModule =>
  typeof module === 'object' && 'module' in module;

function metadata<T>(key: string, target: object): T[] {
  const value: unknown = Reflect.getMetadata(key, target);
  return Array.isArray(value) ? (value as T[]) : value === undefined ? [] : [value as T];
}

/** Every controller a module brings into an application, through all its imports. */
export function controllersOf(root: ModuleRef, seen = new Set<ModuleRef>()): Type[] {
  if (seen.has(root)) return [];
  seen.add(root);
  const type = isDynamic(root) ? root.module : root;
  const imports = [
    ...metadata<ModuleRef>(MODULE_METADATA.IMPORTS, type),
    ...(isDynamic(root) ? ((root.imports ?? []) as ModuleRef[]) : []),
  ];
  const own = [
    ...metadata<Type>(MODULE_METADATA.CONTROLLERS, type),
    ...(isDynamic(root) ? (root.controllers ?? []) : []),
  ];
  const found = new Set(own);
  for (const imported of imports) {
    for (const controller of controllersOf(imported, seen)) found.add(controller);
  }
  return [...found];
}

const join = (...parts: string[]): string =>
  `/${parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/')}`;

/** The routes of these controllers, one per method and path. */
export function routesOf(controllers: readonly Type[]): NestRoute[] {
  return controllers.flatMap((controller) => {
    const bases = metadata<string>(PATH_METADATA, controller);
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const handler = prototype[name];
      if (typeof handler !== 'function' || name === 'constructor') return [];
      const paths = metadata<string>(PATH_METADATA, handler);
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (paths.length === 0 || method === undefined) return [];
      const code = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
      const guards = [
        ...metadata(GUARDS_METADATA, controller),
        ...metadata(GUARDS_METADATA, handler),
      ];
      return (bases.length > 0 ? bases : ['']).flatMap((base) =>
        paths.map((path) => ({
          method: RequestMethod[method],
          path: join(base, path),
          status: code ?? (method === RequestMethod.POST ? 201 : 200),
          guards,
          controller: `${controller.name}.${name}`,
        })),
      );
    });
  });
}

/** A route as compared: the method and the path without a trailing '/'. */
export const routeKey = (route: { method: string; path: string }): string =>
  `${route.method.toUpperCase()} ${route.path.replace(/(.)\/$/, '$1')}`;

/** The routes served that no contract lists, and those listed that nothing serves. */
export function routeDrift(
  served: ReadonlyArray<{ method: string; path: string }>,
  described: ReadonlyArray<{ method: string; path: string }>,
): { undescribed: string[]; unserved: string[] } {
  const listed = new Set(described.map(routeKey));
  const routed = new Set(served.map(routeKey));
  return {
    undescribed: [...routed].filter((route) => !listed.has(route)).sort(),
    unserved: [...listed].filter((route) => !routed.has(route)).sort(),
  };
}

/**
 * How a service's internal routes stand against `internalApi`: the drift between the two
 * lists, and the routes whose success status is not one the endpoint lists (its callers
 * would take that answer for a broken contract).
 */
export function internalRoutesAgainstContract(
  module: ModuleRef,
  service: InternalService,
): { undescribed: string[]; unserved: string[]; successNotListed: string[] } {
  const served = routesOf(controllersOf(module)).filter((route) =>
    route.path.startsWith('/internal/'),
  );
  const described = Object.values(internalApi)
    .filter((endpoint) => endpoint.service === service)
    .map((endpoint) => ({ method: endpoint.method, path: endpoint.route, endpoint }));
  const successNotListed = served
    .filter((route) => {
      const entry = described.find((one) => routeKey(one) === routeKey(route));
      return entry !== undefined && !(route.status in entry.endpoint.answers);
    })
    .map((route) => `${routeKey(route)} answers ${route.status}`);
  return { ...routeDrift(served, described), successNotListed };
}
