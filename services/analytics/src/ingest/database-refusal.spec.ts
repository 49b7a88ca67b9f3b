import { QueryFailedError } from 'typeorm';
import { dataRefusal } from './database-refusal';

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

describe('dataRefusal', () => {
  it.each([
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['22001', 'value too long for type character varying(64)'],
    ['22008', 'timestamp out of range'],
    ['23514', 'new row for relation "visits" violates check constraint "c"'],
    ['23502', 'null value in column "platform" violates not-null constraint'],
    ['54000', 'index row size 9000 exceeds btree version 4 maximum 2704'],
  ])('blames the data for SQLSTATE %s, in PostgreSQL’s words', (code, message) => {
    const wrapped = new QueryFailedError('INSERT …', [], pgError(code, message));
    expect(dataRefusal(wrapped)).toBe(`database: ${message} (SQLSTATE ${code})`);
    expect(dataRefusal(pgError(code, message))).toBe(`database: ${message} (SQLSTATE ${code})`);
  });

  it.each([
    ['08006', 'connection failure'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57014', 'canceling statement due to statement timeout'],
    ['53300', 'sorry, too many clients already'],
    ['40P01', 'deadlock detected'],
    ['40001', 'could not serialize access'],
    ['42P01', 'relation "analytics.visits" does not exist'],
    ['XX000', 'internal error'],
  ])('does not blame the data for SQLSTATE %s: the batch is retried', (code, message) => {
    expect(dataRefusal(new QueryFailedError('INSERT …', [], pgError(code, message)))).toBe(
      undefined,
    );
  });

  it('does not blame the data when there is no SQLSTATE: refused connections, timeouts, our own checks', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const pipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(dataRefusal(refused)).toBe(undefined);
    expect(dataRefusal(pipe)).toBe(undefined);
    expect(dataRefusal(new Error('Connection terminated unexpectedly'))).toBe(undefined);
    expect(dataRefusal(new Error('Database unavailable'))).toBe(undefined);
    expect(dataRefusal('a string')).toBe(undefined);
    expect(dataRefusal(undefined)).toBe(undefined);
  });
});
