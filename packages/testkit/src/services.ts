import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Where the one list of services lives; every runner and check reads it. */
export const SERVICE_LIST_FILE = path.join(REPO_ROOT, 'services', 'services.json');

/**
 * The deployable services. The list itself is services/services.json; this union only gives
 * the names a type (a JSON import widens them to string), and services.spec.ts checks that
 * the two agree.
 */
export const SERVICE_NAMES = ['auth', 'analytics', 'links', 'redirect', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The servers a service may depend on. */
export const SERVER_NAMES = ['postgres', 'redis', 'kafka'] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

export interface ServiceSpec {
  name: ServiceName;
  /** Its workspace package, in services/<name>. */
  package: string;
  /** The port it listens on unless PORT says otherwise (its config's default). */
  port: number;
  /** The variable through which the services that call it find it (AUTH_URL...); null if none does. */
  urlVariable: string | null;
  /** Faces the network: the one published port; the others listen only to the stack. */
  public: boolean;
  /** Its program, relative to services/<name>. */
  entry: string;
  /** Its migration program, relative to services/<name>, if it owns a schema. */
  migrate: string | null;
  /** The servers it needs. */
  servers: ServerName[];
  /** The services it calls over HTTP; listed before it, so started before it. */
  calls: ServiceName[];
  /** Its image carries the built web app (frontend/dist) too. */
  webApp: boolean;
}

const FIELDS: Record<keyof ServiceSpec, (value: unknown) => boolean> = {
  name: (value) => typeof value === 'string',
  package: (value) => typeof value === 'string',
  port: (value) => Number.isInteger(value),
  urlVariable: (value) => value === null || typeof value === 'string',
  public: (value) => typeof value === 'boolean',
  entry: (value) => typeof value === 'string',
  migrate: (value) => value === null || typeof value === 'string',
  servers: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  calls: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  webApp: (value) => typeof value === 'boolean',
};

function isKnown<T extends string>(known: readonly T[], value: string): value is T {
  return (known as readonly string[]).includes(value);
}

/**
 * Everything wrong with a service list at once ([] when sane): shapes, repeats, unknown or
 * later-listed calls (no cycles), URL variables, one public service; with `root`, the folders.
 */
export function serviceListProblems(list: unknown, root?: string): string[] {
  const entries = (list as { services?: unknown } | null)?.services;
  if (!Array.isArray(entries) || entries.length === 0) return ['no "services" array'];
  const problems: string[] = [];
  const seen: string[] = [];
  const ports = new Map<number, string>();
  for (const [index, entry] of entries.entries()) {
    const where = `services[${index}]`;
    if (!entry || typeof entry !== 'object') {
      problems.push(`${where} is not an object`);
      continue;
    }
    const fields = entry as Record<string, unknown>;
    const wrong = Object.entries(FIELDS)
      .filter(([field, valid]) => !valid(fields[field]))
      .map(([field]) => field);
    const extra = Object.keys(fields).filter((field) => !(field in FIELDS));
    if (wrong.length > 0) problems.push(`${where}: missing or malformed ${wrong.join(', ')}`);
    if (extra.length > 0) problems.push(`${where}: unknown field ${extra.join(', ')}`);
    if (wrong.length > 0) continue;
    const spec = fields as unknown as ServiceSpec;
    const name = spec.name;
    if (!/^[a-z][a-z-]*$/.test(name)) problems.push(`${where}: name ${name} is not kebab-case`);
    if (seen.includes(name)) problems.push(`${name} is listed twice`);
    if (spec.port < 1024 || spec.port > 65535) problems.push(`${name}: port ${spec.port}`);
    const samePort = ports.get(spec.port);
    if (samePort !== undefined) problems.push(`${name}: port ${spec.port} is ${samePort}'s too`);
    ports.set(spec.port, name);
    const expectedVariable = `${name.toUpperCase().replace(/-/g, '_')}_URL`;
    if (spec.urlVariable !== null && spec.urlVariable !== expectedVariable) {
      problems.push(`${name}: urlVariable ${spec.urlVariable}, not ${expectedVariable}`);
    }
    for (const server of spec.servers as string[]) {
      if (!isKnown(SERVER_NAMES, server)) problems.push(`${name}: unknown server ${server}`);
    }
    for (const callee of spec.calls) {
      if (callee === name) problems.push(`${name} calls itself`);
      else if (!seen.includes(callee)) {
        problems.push(`${name} calls ${callee}, which is not listed before it`);
      }
    }
    if (root !== undefined) {
      const folder = path.join(root, 'services', name);
      const manifest = path.join(folder, 'package.json');
      if (!existsSync(manifest)) problems.push(`${name}: no services/${name}/package.json`);
      else {
        const { name: packageName } = JSON.parse(readFileSync(manifest, 'utf8')) as {
          name?: string;
        };
        if (packageName !== spec.package) {
          problems.push(
            `${name}: package ${spec.package}, but its package.json says ${packageName}`,
          );
        }
      }
      for (const program of [spec.entry, spec.migrate].filter((file) => file !== null)) {
        const source = program.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts');
        if (!existsSync(path.join(folder, source))) {
          problems.push(`${name}: ${program} has no source services/${name}/${source}`);
        }
      }
    }
    seen.push(name);
  }
  const called = new Set(
    entries.flatMap((entry: Partial<ServiceSpec>) =>
      Array.isArray(entry?.calls) ? entry.calls : [],
    ),
  );
  for (const entry of entries as Partial<ServiceSpec>[]) {
    if (entry?.name && called.has(entry.name) && entry.urlVariable === null) {
      problems.push(`${entry.name} is called, but has no urlVariable to be found by`);
    }
  }
  const publicOnes = (entries as Partial<ServiceSpec>[]).filter((entry) => entry?.public === true);
  if (publicOnes.length !== 1) {
    problems.push(`${publicOnes.length} public services, not exactly one`);
  }
  return problems;
}

let cached: readonly ServiceSpec[] | undefined;

/** The services of services/services.json, in start order; throws, listing why, if it is not sane. */
export function serviceList(): readonly ServiceSpec[] {
  if (cached) return cached;
  const list = JSON.parse(readFileSync(SERVICE_LIST_FILE, 'utf8')) as { services: ServiceSpec[] };
  const problems = serviceListProblems(list);
  const names = list.services.map((service) => service.name);
  const untyped = names.filter((name) => !isKnown(SERVICE_NAMES, name));
  if (untyped.length > 0) problems.push(`not in SERVICE_NAMES: ${untyped.join(', ')}`);
  if (problems.length > 0) {
    throw new Error(`${SERVICE_LIST_FILE}:\n  ${problems.join('\n  ')}`);
  }
  cached = Object.freeze(list.services.map((service) => Object.freeze(service)));
  return cached;
}

export function serviceSpec(name: ServiceName): ServiceSpec {
  const spec = serviceList().find((service) => service.name === name);
  if (!spec) throw new Error(`${name} is not in ${SERVICE_LIST_FILE}`);
  return spec;
}

export function isServiceName(name: string): name is ServiceName {
  return serviceList().some((service) => service.name === name);
}

/** The one service that faces the network (the gateway). */
export function publicService(): ServiceSpec {
  return serviceList().find((service) => service.public)!;
}

/**
 * Start order for some of the services: groups that can start side by side, each after the
 * groups holding the services it calls (calls to services outside `names` do not count).
 */
export function startOrder(names: readonly ServiceName[]): ServiceName[][] {
  const wanted = serviceList().filter((service) => names.includes(service.name));
  const groups: ServiceName[][] = [];
  const placed = new Map<ServiceName, number>();
  // The list is in start order, so every callee in `names` is placed before its callers.
  for (const service of wanted) {
    const after = service.calls.map((callee) => placed.get(callee) ?? -1);
    const group = Math.max(-1, ...after) + 1;
    placed.set(service.name, group);
    (groups[group] ??= []).push(service.name);
  }
  return groups;
}
