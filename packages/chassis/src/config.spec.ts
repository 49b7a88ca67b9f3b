import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, env, isProduction, loadConfig, localSignInRefusal } from './config';

const shape = {
  PORT: env.port(7000),
  DATABASE_URL: env.url(['postgres']),
  SECRET: env.secret(16),
  FLAG: env.bool(false),
  HOSTS: env.list('a,b'),
};

describe('loadConfig', () => {
  it('applies defaults and converts values', () => {
    const config = loadConfig('svc', shape, {
      DATABASE_URL: 'postgres://db/x',
      SECRET: 's'.repeat(16),
      FLAG: 'yes',
    });
    expect(config).toEqual({
      PORT: 7000,
      DATABASE_URL: 'postgres://db/x',
      SECRET: 's'.repeat(16),
      FLAG: true,
      HOSTS: ['a', 'b'],
    });
  });

  it('reads a secret from the file named by NAME_FILE', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-'));
    const file = path.join(dir, 'secret');
    writeFileSync(file, `${'f'.repeat(20)}\n`);
    const config = loadConfig('svc', shape, { DATABASE_URL: 'postgres://db/x', SECRET_FILE: file });
    expect(config.SECRET).toBe('f'.repeat(20));
  });

  it('takes an optional variable whose NAME_FILE does not exist for unset (an optional Secret key not mounted), a required one for an error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-'));
    const missing = path.join(dir, 'not-mounted');
    const optional = { ...shape, OTHER_SECRET: env.secret(16).optional() };
    const source = { DATABASE_URL: 'postgres://db/x', SECRET: 's'.repeat(16) };
    expect(
      loadConfig('svc', optional, { ...source, OTHER_SECRET_FILE: missing }).OTHER_SECRET,
    ).toBe(undefined);
    expect(() =>
      loadConfig('svc', optional, { DATABASE_URL: 'postgres://db/x', SECRET_FILE: missing }),
    ).toThrow(`SECRET_FILE: cannot read ${missing}`);
    // A variable with a default is not optional: its file missing must not mean the default.
    expect(() => loadConfig('svc', optional, { ...source, PORT_FILE: missing })).toThrow(
      `PORT_FILE: cannot read ${missing}`,
    );
    // Anything but a missing file is still an error: the operator meant it to be read.
    expect(() => loadConfig('svc', optional, { ...source, OTHER_SECRET_FILE: dir })).toThrow(
      `OTHER_SECRET_FILE: cannot read ${dir}`,
    );
  });

  it('lists every missing or bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig('svc', shape, { PORT: 'eighty', DATABASE_URL: 'mysql://x', FLAG: 'maybe' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['PORT', 'DATABASE_URL', 'SECRET', 'FLAG']),
    );
    expect(problems).toHaveLength(4);
    expect(message).toContain('svc: invalid configuration');
    expect(problems.find((p) => p.startsWith('SECRET'))).toBe('SECRET: is required');
  });
});

describe('published development values', () => {
  // The values this repository publishes (docker-compose.yml's former defaults, the dev
  // overlay's fake Secret): anyone can read them.
  const published = {
    DATABASE_URL: 'postgres://shortener:dev-only-postgres-password@postgres:5432/shortener',
    SECRET: 'dev-only-internal-secret-do-not-use-in-production',
  };
  const problemsOf = (source: NodeJS.ProcessEnv): string[] => {
    try {
      loadConfig('svc', shape, source);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it.each(['production', 'Production', 'PRODUCTION', 'prod', ' Prod '])(
    'are refused with NODE_ENV=%p, each naming its variable, never its value',
    (nodeEnv) => {
      const problems = problemsOf({ ...published, NODE_ENV: nodeEnv });
      expect(problems.map((problem) => problem.split(':')[0])).toEqual(['DATABASE_URL', 'SECRET']);
      for (const problem of problems) {
        expect(problem).toContain('published development value');
        expect(problem).not.toContain('password');
        expect(problem).not.toContain('do-not-use');
      }
    },
  );

  it.each([
    ['SECRET', 'DEV-ONLY-fake-internal-secret-0123456789'],
    ['SECRET', 'dev-only-something-else-of-my-own'],
    ['DATABASE_URL', 'postgres://shortener:dev-only-fake-password@db:5432/shortener'],
    ['DATABASE_URL', 'postgres://shortener:dev%2Donly-escaped-password@db:5432/shortener'],
  ])(
    'refuse any %s starting with dev-only (or a URL whose password does) in production',
    (key, value) => {
      const source = { ...published, SECRET: 's'.repeat(16), DATABASE_URL: 'postgres://db/x' };
      expect(problemsOf({ ...source, [key]: value, NODE_ENV: 'production' })).toEqual([
        expect.stringMatching(new RegExp(`^${key}: holds a published development value`)),
      ]);
    },
  );

  it('also when the secret comes from a file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-'));
    const file = path.join(dir, 'secret');
    writeFileSync(file, `${published.SECRET}\n`);
    const source = { DATABASE_URL: 'postgres://db/x', SECRET_FILE: file, NODE_ENV: 'production' };
    expect(problemsOf(source)).toEqual([expect.stringMatching(/^SECRET: holds a published/)]);
  });

  it.each([undefined, 'development', 'test', 'production-like', 'preprod'])(
    'are accepted with NODE_ENV=%p (trying the stack)',
    (nodeEnv) => {
      expect(problemsOf({ ...published, NODE_ENV: nodeEnv })).toEqual([]);
    },
  );

  it('leave real secrets alone in production, even ones that merely contain dev-only', () => {
    const source = {
      SECRET: 'my-dev-only-looking-but-real-secret',
      DATABASE_URL: 'postgres://shortener:s3cret-dev-only@db:5432/shortener',
      NODE_ENV: 'production',
    };
    expect(problemsOf(source)).toEqual([]);
  });
});

describe('production', () => {
  it('tells production from its look-alikes', () => {
    expect(['production', 'Prod', 'PRODUCTION'].map(isProduction)).toEqual([true, true, true]);
    expect(['development', 'production-like', 'preprod', undefined].map(isProduction)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('refuses the local sign-in there only', () => {
    expect(localSignInRefusal(' prod ')).toMatch(/only for trying the product/);
    expect(localSignInRefusal('development')).toBeUndefined();
  });
});
