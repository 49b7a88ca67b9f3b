import pino from 'pino';
import { ManagedDataSource } from './database';
import { serveInProcess } from './in-process';

describe('a database served in this process', () => {
  const dataSource = (url: string) =>
    new ManagedDataSource({
      url,
      schema: 'test',
      entities: [],
      migrations: [],
      logger: pino({ enabled: false }),
      applicationName: 'test',
      migrate: false,
    }).dataSource;
  /** The module TypeORM's postgres driver connects with. */
  const moduleOf = (url: string): unknown =>
    (dataSource(url).driver as unknown as { postgres: unknown }).postgres;

  it('is reached through the module it is served with, by its URL, until withdrawn', () => {
    const url = 'postgres://in-process.invalid/postgres';
    const served = { Pool: class {} };
    const withdraw = serveInProcess(url, served);
    expect(moduleOf(url)).toBe(served);
    expect(moduleOf('postgres://127.0.0.1:5432/other')).not.toBe(served);
    withdraw();
    expect(moduleOf(url)).not.toBe(served);
  });
});
