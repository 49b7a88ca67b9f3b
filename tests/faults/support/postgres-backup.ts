import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

/** Where Debian puts each PostgreSQL major's programs (postgresql-client-NN). */
const DEBIAN_BINS = '/usr/lib/postgresql';

async function serverMajor(databaseUrl: string): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ v: string }>(
      "SELECT current_setting('server_version_num') v",
    );
    return Math.floor(Number(rows[0]!.v) / 10_000);
  } finally {
    await db.end();
  }
}

/**
 * The folder of pg_dump and pg_restore for a server: Debian's newest major that is at least
 * the server's (pg_dump refuses a newer server), else whatever is on the PATH.
 */
export async function postgresBin(databaseUrl: string): Promise<string> {
  const major = await serverMajor(databaseUrl);
  const majors = existsSync(DEBIAN_BINS)
    ? readdirSync(DEBIAN_BINS)
        .map(Number)
        .filter(
          (n) => n >= major && existsSync(path.join(DEBIAN_BINS, String(n), 'bin', 'pg_dump')),
        )
        .sort((a, b) => b - a)
    : [];
  if (majors[0] !== undefined) return path.join(DEBIAN_BINS, String(majors[0]), 'bin');
  const { stdout } = await run('sh', ['-c', 'command -v pg_dump']).catch(() => ({ stdout: '' }));
  if (!stdout.trim()) {
    throw new Error(
      `no pg_dump for PostgreSQL ${major}: install Debian's postgresql-client-${major} ` +
        '(apt-get install postgresql-client)',
    );
  }
  return path.dirname(stdout.trim());
}

/** The URL of another database on the same server. */
export function databaseUrlOf(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function nameOf(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}

/** Runs SQL on the server's maintenance database (`postgres`), as createdb and dropdb do. */
async function onServer(databaseUrl: string, sql: string): Promise<void> {
  const db = new Client({ connectionString: databaseUrlOf(databaseUrl, 'postgres') });
  await db.connect();
  try {
    await db.query(sql);
  } finally {
    await db.end();
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

export function createDatabase(databaseUrl: string): Promise<void> {
  return onServer(databaseUrl, `CREATE DATABASE ${quoted(nameOf(databaseUrl))}`);
}

/**
 * Drops a database with everyone still connected to it, as a lost volume takes it: their
 * sessions are ended (FORCE, PostgreSQL 13 or later) and their next connections refused.
 */
export function dropDatabase(databaseUrl: string): Promise<void> {
  return onServer(
    databaseUrl,
    `DROP DATABASE IF EXISTS ${quoted(nameOf(databaseUrl))} WITH (FORCE)`,
  );
}

/** The guide's dump: `pg_dump --format=custom --file=<file> <url>`; answers how long it took. */
export async function dump(bin: string, databaseUrl: string, file: string): Promise<number> {
  const began = Date.now();
  await run(path.join(bin, 'pg_dump'), ['--format=custom', `--file=${file}`, databaseUrl], {
    timeout: 120_000,
  });
  return Date.now() - began;
}

/**
 * The guide's restore into an empty database: `pg_restore --no-owner --exit-on-error
 * --single-transaction --dbname=<url> <file>`, then `vacuumdb --analyze-only` (a dump holds
 * no planner statistics); answers how long both took.
 */
export async function restore(bin: string, databaseUrl: string, file: string): Promise<number> {
  const began = Date.now();
  await run(
    path.join(bin, 'pg_restore'),
    ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${databaseUrl}`, file],
    { timeout: 120_000 },
  );
  await run(path.join(bin, 'vacuumdb'), ['--analyze-only', `--dbname=${databaseUrl}`], {
    timeout: 120_000,
  });
  return Date.now() - began;
}
