import { setTimeout as sleep } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import { pgliteDriver } from './pglite-pool';

// The pool every service's data source gets in the embedded mode. PGlite cannot load under
// Jest (it imports its WebAssembly dynamically), so the database here records what it runs
// and answers after a real pause, in which other clients' statements arrive:
// tests/integration/embedded.int-spec.ts runs the same cases against PGlite.

interface Answer {
  rows: unknown[];
  fields: Array<{ name: string; dataTypeID: number }>;
  command?: string;
  rowCount?: number;
}

class RecordingDatabase {
  readonly ran: string[] = [];
  parsers: Record<string, unknown> = {};
  private inTransaction = false;

  async query(
    text: string,
    params: unknown[],
    options: { serializers: Record<number, (value: unknown) => unknown> },
  ): Promise<Answer> {
    await sleep(5);
    const sent = params.map((param, i) => options.serializers[i]?.(param));
    this.ran.push(`${text} ${JSON.stringify(sent)}`);
    return { rows: [{ sent }], fields: [], command: 'SELECT', rowCount: 1 };
  }

  async exec(text: string): Promise<Answer[]> {
    await sleep(5);
    this.ran.push(text);
    if (text === 'BEGIN') this.inTransaction = true;
    if (text === 'COMMIT' || text === 'ROLLBACK') this.inTransaction = false;
    if (text.startsWith('boom')) throw new Error('refused');
    return text.split(';').map((statement) => ({
      rows: [],
      fields: [],
      command: statement.trim().split(' ')[0],
    }));
  }

  isInTransaction(): boolean {
    return this.inTransaction;
  }
}

interface TestClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
  release(): Promise<void>;
}

describe('the pool over PGlite', () => {
  let database: RecordingDatabase;
  let pools: Array<{ connect(): Promise<TestClient> }>;

  beforeEach(() => {
    database = new RecordingDatabase();
    const { Pool } = pgliteDriver(database as unknown as PGlite);
    pools = [new Pool(), new Pool()] as unknown as typeof pools;
  });

  const connect = (pool = 0): Promise<TestClient> => pools[pool]!.connect();

  it("keeps a transaction to its client: another pool's statement waits for its end", async () => {
    const writer = await connect(0);
    const reader = await connect(1);
    await writer.query('BEGIN');
    const read = reader.query('SELECT reader');
    await writer.query('INSERT writer');
    await writer.query('COMMIT');
    await read;
    expect(database.ran).toEqual(['BEGIN', 'INSERT writer', 'COMMIT', 'SELECT reader']);
  });

  it('rolls back what a client left open when it goes back to the pool', async () => {
    const leaving = await connect();
    const next = await connect();
    await leaving.query('BEGIN');
    await leaving.query('INSERT leaving');
    const waiting = next.query('SELECT next');
    await leaving.release();
    await waiting;
    expect(database.ran).toEqual(['BEGIN', 'INSERT leaving', 'ROLLBACK', 'SELECT next']);
  });

  it('keeps the turn of a transaction whose statement failed, until its rollback', async () => {
    const failing = await connect();
    const other = await connect();
    await failing.query('BEGIN');
    await expect(failing.query('boom')).rejects.toThrow('refused');
    const waiting = other.query('SELECT other');
    await sleep(30);
    await failing.query('ROLLBACK');
    await waiting;
    expect(database.ran).toEqual(['BEGIN', 'boom', 'ROLLBACK', 'SELECT other']);
  });

  it("runs one client's statements in the order it sent them, as pg does", async () => {
    const client = await connect();
    await Promise.all(['SELECT 1', 'SELECT 2', 'SELECT 3'].map((text) => client.query(text)));
    expect(database.ran).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3']);
  });

  it("sends parameters as pg prepares them, and answers in pg's shape", async () => {
    const client = await connect();
    const bytes = Buffer.from([1, 2, 3]);
    const answer = (await client.query('SELECT $1, $2, $3, $4, $5', [
      true,
      { a: 1 },
      ['x', 'y'],
      undefined,
      bytes,
    ])) as { command: string; rowCount: number; rows: Array<{ sent: unknown[] }> };
    expect(answer.command).toBe('SELECT');
    expect(answer.rowCount).toBe(1);
    expect(answer.rows[0]?.sent).toEqual(['true', '{"a":1}', '{"x","y"}', null, bytes]);
    // Without parameters, several statements answer one result each, as pg's simple query.
    const several = (await client.query('CREATE TABLE t (n int); DROP TABLE t')) as Array<{
      command: string;
      rowCount: number | null;
    }>;
    expect(several.map(({ command, rowCount }) => [command, rowCount])).toEqual([
      ['CREATE', null],
      ['DROP', null],
    ]);
  });

  it('reads rows with pg’s own type parsers', () => {
    const parse = (oid: number, text: string): unknown =>
      (database.parsers[String(oid)] as (value: string) => unknown)(text);
    expect(parse(20, '9007199254740993')).toBe('9007199254740993');
    expect(parse(1700, '1.50')).toBe('1.50');
    expect(parse(23, '42')).toBe(42);
    expect(parse(16, 't')).toBe(true);
    expect(parse(1016, '{1,2}')).toEqual(['1', '2']);
    expect(parse(1184, '2026-01-02 03:04:05+00')).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(parse(3802, '{"a":[1]}')).toEqual({ a: [1] });
    expect(parse(17, '\\x0102')).toEqual(Buffer.from([1, 2]));
  });
});
