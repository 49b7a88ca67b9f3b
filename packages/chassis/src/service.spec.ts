import { inProcess, type Adapter } from './adapter';
import { createLogger } from './logger';
import {
  adapterConnector,
  readinessChecks,
  serviceConfigShape,
  serverConfigShape,
} from './service';

interface TwoAdapters {
  cache: Adapter<string>;
  visits: Adapter<number>;
}

const logger = createLogger('test', 'silent');
const check = (name: string, optional?: boolean) => ({
  name,
  check: () => Promise.resolve(),
  ...(optional === undefined ? {} : { optional }),
});

describe('adapterConnector', () => {
  const built: string[] = [];
  const connect = adapterConnector<{ url: string }, TwoAdapters>((config) => ({
    cache: () => (built.push('cache'), inProcess(`cache at ${config.url}`)),
    visits: () => (built.push('visits'), inProcess(1)),
  }));
  beforeEach(() => (built.length = 0));

  it('builds every adapter from the configuration when none is given', () => {
    const adapters = connect({ url: 'redis://x' }, logger);
    expect(adapters.cache.value).toBe('cache at redis://x');
    expect(adapters.visits.value).toBe(1);
    expect(built).toEqual(['cache', 'visits']);
  });

  it('keeps the adapters given and builds (connects) only the others', () => {
    const visits = inProcess(2);
    const adapters = connect({ url: 'redis://x' }, logger, { visits, cache: undefined });
    expect(adapters.visits).toBe(visits);
    expect(built).toEqual(['cache']);
  });
});

describe('readinessChecks', () => {
  it('lists the service’s own checks as they are, then every adapter’s as optional', () => {
    const adapters: TwoAdapters = {
      cache: inProcess('c', [check('redis')]),
      visits: inProcess(1, [check('kafka', false)]),
    };
    const checks = readinessChecks([check('postgres'), check('links', true)], adapters);
    expect(checks.map(({ name, optional }) => ({ name, optional }))).toEqual([
      { name: 'postgres', optional: undefined },
      { name: 'links', optional: true },
      { name: 'redis', optional: true },
      { name: 'kafka', optional: true },
    ]);
  });
});

describe('the shared config blocks', () => {
  it('default the port they are given, and only the internal services read the previous secret', () => {
    expect(serverConfigShape(7004).PORT.parse(undefined)).toBe(7004);
    expect(Object.keys(serverConfigShape(8080))).not.toContain('INTERNAL_API_SECRET');
    expect(Object.keys(serviceConfigShape(7001))).toEqual(
      expect.arrayContaining(['PORT', 'INTERNAL_API_SECRET', 'INTERNAL_API_SECRET_PREVIOUS']),
    );
  });
});
