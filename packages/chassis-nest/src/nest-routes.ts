import type { DynamicModule, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { boundEntry, nestPath, type ContractEntry } from './contract-route';

/**
 * The contract entries an application's handlers are bound to (@Route), read from their
 * decorators without starting it: for a test that each entry has exactly one handler.
 */

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

/** The entries the handlers of a module's controllers are bound to, once per handler. */
export function boundEntries(module: ModuleRef): ContractEntry[] {
  return controllersOf(module).flatMap((controller) => {
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const entry = name === 'constructor' ? undefined : boundEntry(prototype[name]);
      return entry ? [entry] : [];
    });
  });
}

const nameOf = (entry: ContractEntry): string => `${entry.method} ${nestPath(entry)}`;

/**
 * How a module's handlers stand against the entries it should serve: entries without a
 * handler, entries with more than one, and handlers bound to an entry not in the list.
 */
export function handlersAgainst(
  module: ModuleRef,
  entries: readonly ContractEntry[],
): { unserved: string[]; servedTwice: string[]; unlisted: string[] } {
  const bound = boundEntries(module);
  const times = (entry: ContractEntry): number => bound.filter((one) => one === entry).length;
  return {
    unserved: entries.filter((entry) => times(entry) === 0).map(nameOf),
    servedTwice: entries.filter((entry) => times(entry) > 1).map(nameOf),
    unlisted: bound.filter((entry) => !entries.includes(entry)).map(nameOf),
  };
}
