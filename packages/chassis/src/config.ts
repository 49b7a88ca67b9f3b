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
 * also come from a file named by `<NAME>_FILE` (Kubernetes mounts secrets as files). Every
 * missing or bad variable is reported in one error, not the first one only.
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
      } catch {
        problems.push(`${key}_FILE: cannot read ${fileVar}`);
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

/** Building blocks for service config schemas, so every service reads a variable alike. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: (fallback = '0.0.0.0') => z.string().min(1).default(fallback),
  /** OPS_PORT: unset unless given; see OpsConfig. */
  opsPort: () => z.coerce.number().int().min(1).max(65535).optional(),
  /** OPS_HOST: unset unless given (the ops port then listens on HOST). */
  opsHost: () => z.string().min(1).optional(),
  url: (protocols: readonly string[], fallback?: string) => {
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
  },
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
  socketPath: () =>
    z
      .string()
      .refine(isAbsolute, { message: 'must be an absolute path' })
      .refine((value) => Buffer.byteLength(value) <= 107, {
        message: 'must be at most 107 bytes long (a Unix socket path)',
      })
      .optional(),
  logLevel: () =>
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  secret: (minLength = 16) =>
    z.string().min(minLength, { message: `must be at least ${minLength} characters` }),
};
