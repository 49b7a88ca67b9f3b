import { Client } from 'pg';
import { testServers } from '@shortener/testkit';
import {
  boolArray,
  byteaArray,
  int4Array,
  int8Array,
  textArray,
  timestamptzArray,
  uuidArray,
} from './binary-arrays';

// Each array is sent twice to the real PostgreSQL: in the binary format written here and as
// node-postgres's own text literal of the same values (how the statements sent them before);
// PostgreSQL must read the same array from both.

describe('binary array parameters', () => {
  const db = new Client({ connectionString: testServers.databaseUrl });
  const same = async (type: string, binary: Buffer, values: unknown[]): Promise<void> => {
    const { rows } = await db.query<{ same: boolean; binary: string; text: string }>(
      `SELECT $1::${type}[] IS NOT DISTINCT FROM $2::${type}[] AS same,
              $1::${type}[]::text AS binary, $2::${type}[]::text AS text`,
      [binary, values],
    );
    expect(rows[0]!.binary).toBe(rows[0]!.text);
    expect(rows[0]!.same).toBe(true);
  };
  const itself = <T>(value: T) => value;

  beforeAll(() => db.connect());
  afterAll(() => db.end());

  it('reads text and varchar elements as the text form does: any Unicode, empty, quotes, NULL', async () => {
    const texts = [
      'Chrome',
      '',
      'a "quoted" \\ back\\slash, {braces}, commas',
      'NULL',
      'Ünïcödé 浏览器 🚀',
      'x'.repeat(3000),
      null,
    ];
    await same('text', textArray(texts, itself), texts);
    const plain = ['abcDEF1', '198.51.100.7', '2001:db8::1'];
    await same('varchar', textArray(plain, itself, 1043), plain);
  });

  it('reads UUIDs in either case', async () => {
    const ids = [
      '0195f3a2-7c4e-7d2b-8f10-3a9c5e6b7d8e',
      '0B6F3A52-6A5E-4A8F-9D3C-2F1E0C9B8A7D',
      '00000000-0000-0000-0000-000000000000',
    ];
    await same('uuid', uuidArray(ids, itself), ids);
    expect(() => uuidArray(['not-a-uuid'], itself)).toThrow(TypeError);
  });

  it('reads instants to the millisecond, before 2000, now, and up to the end of the year 9999', async () => {
    const instants = [
      1,
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 0, 1),
      1_763_900_000_123,
      Date.parse('9999-12-31T23:59:59.999Z'),
    ];
    await same(
      'timestamptz',
      timestamptzArray(instants, itself),
      instants.map((ms) => new Date(ms).toISOString()),
    );
  });

  it('reads whole numbers, booleans and bytes', async () => {
    const big = [
      0,
      1,
      -1,
      2 ** 32,
      -(2 ** 32) - 5,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ];
    await same('int8', int8Array(big, itself), big);
    expect(() => int8Array([0.5], itself)).toThrow(RangeError);
    const small = [0, 4, -7, 2 ** 31 - 1];
    await same('int4', int4Array(small, itself), small);
    await same('boolean', boolArray([true, false], itself), [true, false]);
    const bytes = [Buffer.from('00ff10', 'hex'), Buffer.alloc(0), Buffer.alloc(40_000, 7)];
    await same('bytea', byteaArray(bytes, itself), bytes);
  });

  it('reads an empty array', async () => {
    await same('text', textArray([], itself), []);
    await same('uuid', uuidArray([], itself), []);
  });

  it('grows past its first guess without losing what was written', async () => {
    const long = Array.from({ length: 50 }, (_, i) => `${i}:${'é'.repeat(500 + i)}`);
    await same('text', textArray(long, itself), long);
  });
});
