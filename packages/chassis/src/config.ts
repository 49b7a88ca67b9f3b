import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(
      `${service}: invalid configuration, fix these environment variables:\n` +
        problems.map((problem) => `  - ${problem}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/**
 * Reads the variables a schema names from the environment, once, at start-up. A secret may
 * also come from a file named by `<NAME>_FILE` (Kubernetes mounts secrets as files; an
 * optional variable's file may be missing). Every missing or bad variable is reported in one
 * error, not the first one only.
 */
export function loadConfig<Shape extends z.ZodRawShape>(
  service: string,
  shape: Shape,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<Shape>> {
  const problems: string[] = [];
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(shape)) {
    const fileVar = env[`${key}_FILE`];
    const direct = env[key];
    if (direct !== undefined && direct !== '') {
      raw[key] = direct;
    } else if (fileVar) {
      try {
        raw[key] = readFileSync(fileVar, 'utf8').trim();
      } catch (error) {
        // An optional Secret key that is not there is not mounted (Kubernetes projects no
        // file for it): the variable is unset, as it would be without the key in env.
        // One with a default is not: its file missing must not fall back to that default.
        const absent = (error as NodeJS.ErrnoException).code === 'ENOENT';
        if (!(absent && shape[key]!._zod.optout === 'optional')) {
          problems.push(`${key}_FILE: cannot read ${fileVar}`);
        }
      }
    }
  }
  if (isProduction(env['NODE_ENV'])) problems.push(...developmentValueProblems(raw));
  const result = z.object(shape).safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = issue.path.join('.') || '(config)';
      const given = raw[key];
      problems.push(
        given === undefined
          ? `${key}: ${issue.message.includes('received undefined') ? 'is required' : issue.message}`
          : `${key}: ${issue.message}`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(service, problems);
  return (result as { data: z.infer<z.ZodObject<Shape>> }).data;
}

/** NODE_ENV names production: `production` or `prod`, in any case, spaces ignored. */
export function isProduction(nodeEnv: string | undefined): boolean {
  return /^prod(uction)?$/i.test(nodeEnv?.trim() ?? '');
}

/**
 * Why LOCAL_SIGN_IN (any name, no password) cannot be on under this NODE_ENV, for the auth
 * service and the embedded mode alike; undefined where it may be.
 */
export function localSignInRefusal(nodeEnv: string | undefined): string | undefined {
  if (!isProduction(nodeEnv)) return undefined;
  return (
    'the local sign-in is only for trying the product: it lets anyone sign in as anyone. ' +
    'Configure Google sign-in (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET) and unset LOCAL_SIGN_IN'
  );
}

/**
 * Values published in this repository for trying the stack (docker-compose's and the dev
 * overlay's examples all start with `dev-only`): anyone can read them, so a production
 * process refuses them, as a whole value or as the password inside a URL.
 */
const DEVELOPMENT_VALUE = /^dev-only/i;

function developmentValueProblems(raw: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    let password = '';
    try {
      password = decodeURIComponent(new URL(value).password);
    } catch {
      // not a URL (or a malformed escape): only the whole value is checked
    }
    if (DEVELOPMENT_VALUE.test(value.trim()) || DEVELOPMENT_VALUE.test(password)) {
      problems.push(
        `${key}: holds a published development value (dev-only…), refused when NODE_ENV is production: set a secret of your own`,
      );
    }
  }
  return problems;
}

/** "a", "a or b", "a, b or c". */
function oneOf(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** A URL of one of `protocols`, `fallback` unless given (and required without one). */
function urlOf(protocols: readonly string[]): z.ZodString;
function urlOf(protocols: readonly string[], fallback: string): z.ZodDefault<z.ZodString>;
function urlOf(protocols: readonly string[], fallback?: string) {
  const schema = z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    },
    { message: `must be a ${oneOf(protocols)} URL` },
  );
  return fallback === undefined ? schema : schema.default(fallback);
}

/** Building blocks for service config schemas, so every service reads a variable alike. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: (fallback = '0.0.0.0') => z.string().min(1).default(fallback),
  /** OPS_PORT: unset unless given; see OpsConfig. */
  opsPort: () => z.coerce.number().int().min(1).max(65535).optional(),
  /** OPS_HOST: unset unless given (the ops port then listens on HOST). */
  opsHost: () => z.string().min(1).optional(),
  url: urlOf,
  /** REDIS_URL: a redis or rediss URL, Redis on this machine unless given. */
  redisUrl: () => urlOf(['redis', 'rediss'], 'redis://127.0.0.1:6379'),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true' || value === '1' || value === 'yes'),
  list: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      ),
  string: (fallback: string) => z.string().min(1).default(fallback),
  /**
   * A Unix socket to listen on: unset unless given; an absolute path within the 107 bytes
   * Linux allows one.
   */
  /** An absolute path to a folder, or unset. */
  folder: () => z.string().refine(isAbsolute, { message: 'must be an absolute path' }).optional(),
  socketPath: () =>
    z
      .string()
      .refine(isAbsolute, { message: 'must be an absolute path' })
      .refine((value) => Buffer.byteLength(value) <= 107, {
        message: 'must be at most 107 bytes long (a Unix socket path)',
      })
      .optional(),
  /**
   * HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS: how long a client may take to send a request's
   * head, and the whole of it with its body (see limitRequestTimes). Node's own limits, 60 s
   * and 300 s, let a client that sends a byte every few seconds hold a connection for minutes.
   */
  headersTimeoutMs: () => z.coerce.number().int().min(500).max(120_000).default(10_000),
  requestTimeoutMs: () => z.coerce.number().int().min(500).max(600_000).default(30_000),
  /**
   * KEEP_ALIVE_TIMEOUT_MS (keepIdleConnections): Node's own 5 s unless given; Kubernetes sets
   * it above its Ingress controller's upstream idle timeout (k8s/base/kustomization.yaml).
   */
  keepAliveTimeout: () => z.coerce.number().int().min(1000).max(600_000).default(5000),
  logLevel: () =>
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  secret: (minLength = 16) =>
    z.string().min(minLength, { message: `must be at least ${minLength} characters` }),
};
