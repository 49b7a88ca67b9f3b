import fs from 'node:fs';
import path from 'node:path';
import { isServiceName, serviceList, type ServiceName } from '@shortener/testkit';

export { serviceSpec, type ServiceName } from '@shortener/testkit';

export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** The deployables (services/services.json), each with its own image, Deployment and compose service. */
export const SERVICES: readonly ServiceName[] = serviceList().map((service) => service.name);

/** The services that own a schema and ship a migration entry point. */
export const MIGRATING_SERVICES: readonly ServiceName[] = serviceList()
  .filter((service) => service.migrate !== null)
  .map((service) => service.name);

export const isService = isServiceName;

export function readRepoFile(relative: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, relative), 'utf8');
}

export function repoPathExists(relative: string): boolean {
  return fs.existsSync(path.join(REPO_ROOT, relative));
}

/** A variable's schema in a service's config shape (zod: `parse(undefined)` gives its default). */
interface VariableSchema {
  safeParse(value: unknown): { success: boolean; data?: unknown };
}

/**
 * A service's config shape: the `…ConfigShape` its src/config.ts exports (the chassis's
 * shared blocks spread in), loaded as the service loads it.
 */
function configShape(service: ServiceName): Record<string, VariableSchema> {
  const file = path.join(REPO_ROOT, `services/${service}/src/config.ts`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = require(file) as Record<string, unknown>;
  const shape = Object.entries(exported).find(([name]) => name.endsWith('ConfigShape'))?.[1];
  if (shape === undefined) throw new Error(`${file}: no "export const …ConfigShape" found`);
  return shape as Record<string, VariableSchema>;
}

/** The environment variables a service reads: the keys of its config shape. */
export function configVariables(service: ServiceName): string[] {
  return Object.keys(configShape(service));
}

/** A variable's default in a service's config shape; undefined without one. */
export function configDefault(service: ServiceName, variable: string): unknown {
  const schema = configShape(service)[variable];
  if (schema === undefined) throw new Error(`services/${service} does not read ${variable}`);
  const result = schema.safeParse(undefined);
  return result.success ? result.data : undefined;
}

/** The port a service listens on unless PORT says otherwise. */
export function defaultPort(service: ServiceName): number {
  const port = configDefault(service, 'PORT');
  if (typeof port !== 'number') throw new Error(`services/${service}: no PORT default`);
  return port;
}

/**
 * Variables that must be given in a deployment: the shared secret, and every address whose
 * default (127.0.0.1, localhost) is only right on one machine. Google's endpoints default to
 * Google's and are not listed.
 */
export function requiredInDeployment(service: ServiceName): string[] {
  return configVariables(service).filter(
    (name) =>
      name === 'INTERNAL_API_SECRET' ||
      name === 'KAFKA_BROKERS' ||
      name === 'PUBLIC_ORIGIN' ||
      (name.endsWith('_URL') && !name.startsWith('GOOGLE_')),
  );
}

interface PackageJson {
  name: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
}

function readPackageJson(folder: string): PackageJson {
  return JSON.parse(readRepoFile(`${folder}/package.json`)) as PackageJson;
}

/** The root package.json's workspace folders, e.g. "packages/chassis". */
export function workspaceFolders(): string[] {
  return readPackageJson('.').workspaces ?? [];
}

/** Workspace folders a service needs at run time: its own and its @shortener/* dependencies'. */
export function runtimeWorkspaces(service: ServiceName): string[] {
  const byName = new Map(
    workspaceFolders().map((folder) => [readPackageJson(folder).name, folder]),
  );
  const needed = new Set<string>();
  const visit = (folder: string) => {
    if (needed.has(folder)) return;
    needed.add(folder);
    for (const dependency of Object.keys(readPackageJson(folder).dependencies ?? {})) {
      const dependencyFolder = byName.get(dependency);
      if (dependencyFolder !== undefined) visit(dependencyFolder);
    }
  };
  visit(`services/${service}`);
  return [...needed].sort();
}
