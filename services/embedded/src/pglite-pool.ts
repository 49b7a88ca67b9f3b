import { EventEmitter } from 'node:events';
import type { PGlite, Results } from '@electric-sql/pglite';
import { types } from 'pg';

// Not in pg's type declarations: how pg itself turns a parameter into text.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

/** A row set as `pg` answers it (what TypeORM reads). */
interface PgResult {
  command: string | undefined;
  rowCount: number | null;
  rows: unknown[];
  fields: Array<{ name: string; dataTypeID: number }>;
}

type Callback = (error: Error | null, result?: PgResult | PgResult[]) => void;

/**
 * Parameters reach PostgreSQL as pg sends them (prepareValue): text the server reads as the
 * type it infers, or bytes in binary format (a Buffer), not converted again by PGlite.
 */
const AS_SENT = new Proxy({}, { get: () => (value: unknown) => value });

function asPgResult(result: Results<unknown>): PgResult {
  return {
    command: result.command,
    rowCount: result.rowCount ?? null,
    rows: result.rows,
    fields: result.fields,
  };
}

/**
 * Whose turn it is with PGlite's one session. A statement outside a transaction takes it for
 * itself; a transaction keeps it from its BEGIN to its end, so no other client's statement
 * runs inside it. The others wait in the order they asked.
 */
class Session {
  private holder: object | null = null;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly db: PGlite) {}

  async run(client: object, text: string, values?: unknown[]): Promise<PgResult | PgResult[]> {
    await this.take(client);
    try {
      if (values && values.length > 0) {
        const result = await this.db.query(
          text,
          values.map((value) => prepareValue(value)),
          { serializers: AS_SENT },
        );
        return asPgResult(result);
      }
      // Without parameters, as pg: the simple protocol, several statements allowed.
      const results = (await this.db.exec(text)).map(asPgResult);
      return results.length === 1 ? (results[0] as PgResult) : results;
    } finally {
      if (!this.db.isInTransaction()) this.give(client);
    }
  }

  /** A client gone back to the pool: what it left open is rolled back. */
  async leave(client: object): Promise<void> {
    if (this.holder !== client) return;
    try {
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    } finally {
      this.give(client);
    }
  }

  private take(client: object): Promise<void> {
    if (this.holder === client) return Promise.resolve();
    if (this.holder === null) {
      this.holder = client;
      return Promise.resolve();
    }
    return new Promise((begin) =>
      this.waiting.push(() => {
        this.holder = client;
        begin();
      }),
    );
  }

  private give(client: object): void {
    if (this.holder !== client) return;
    this.holder = null;
    this.waiting.shift()?.();
  }
}

/** A connection of the pool: its statements run one after another, as on a pg client. */
class Client extends EventEmitter {
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly session: Session) {
    super();
  }

  query(text: string, values?: unknown[] | Callback, callback?: Callback): Promise<unknown> | void {
    const [params, done] = typeof values === 'function' ? [undefined, values] : [values, callback];
    const result = this.last.then(() => this.session.run(this, text, params));
    this.last = result.catch(() => undefined);
    if (!done) return result;
    result.then(
      (answer) => done(null, answer),
      (error: Error) => done(error),
    );
  }

  release(): Promise<void> {
    return this.last.then(() => this.session.leave(this));
  }
}

/**
 * A `pg`-shaped module over one PGlite, for TypeORM's `driver` option: every pool of every
 * service shares PGlite's session, one transaction at a time. Rows are read as pg reads
 * them (its own type parsers: bigint and numeric as strings, timestamps as Dates...).
 */
export function pgliteDriver(db: PGlite): { Pool: new () => object } {
  db.parsers = new Proxy(
    {},
    {
      get: (_, oid) =>
        typeof oid === 'string' ? (types.getTypeParser(Number(oid)) as unknown) : undefined,
    },
  );
  const session = new Session(db);

  class Pool extends EventEmitter {
    connect(callback?: (error: Error | null, client: Client, release: () => void) => void) {
      const client = new Client(session);
      if (!callback) return Promise.resolve(client);
      // A rollback that fails has nowhere to go: the next statement will say what is wrong.
      callback(null, client, () => void client.release().catch(() => undefined));
      return undefined;
    }

    async query(text: string, values?: unknown[]): Promise<unknown> {
      const client = new Client(session);
      try {
        return await client.query(text, values);
      } finally {
        await client.release();
      }
    }

    end(callback?: (error?: Error) => void): Promise<void> {
      // The database is the host's: it closes it once every service has stopped.
      callback?.();
      return Promise.resolve();
    }
  }
  return { Pool };
}
