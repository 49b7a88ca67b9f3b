import { RequestMethod, type DynamicModule, type Type } from '@nestjs/common';
import {
  GUARDS_METADATA,
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  MODULE_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants';

/** One route a Nest controller serves, as its decorators declare it. */
export interface NestRoute {
  method: string;
  /** With `{name}` for a path parameter, as OpenAPI writes it; no trailing '/'. */
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
    .map((segment) => segment.replace(/^:(\w+)$/, '{$1}'))
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
