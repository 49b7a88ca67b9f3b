import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, env, loadConfig } from './config';

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
