import { createLogger, pathOf, withoutQueries } from './logger';

describe('pathOf', () => {
  it.each([
    ['/api/shorten/?url=https%3A%2F%2Fa.example%2F%3Ft%3D1&days=7', '/api/shorten/'],
    ['/auth/google/callback?code=c&state=s', '/auth/google/callback'],
    ['/r/abc#frag', '/r/abc'],
    ['/r/abc', '/r/abc'],
  ])('%s is logged as %s', (url, path) => {
    expect(pathOf(url)).toBe(path);
  });
});

describe('withoutQueries', () => {
  it.each([
    ['Cannot GET /api/x?secret=s1', 'Cannot GET /api/x'],
    ['https://docs.example/report?token=t1&key=k1 failed', 'https://docs.example/report failed'],
    ['docs.example?token=t2', 'docs.example'],
    ['see /a#access_token=t3', 'see /a'],
    ['what? really?', 'what? really?'],
    ['no query at all', 'no query at all'],
  ])('%j becomes %j', (text, cleaned) => {
    expect(withoutQueries(text)).toBe(cleaned);
  });
});

describe('createLogger', () => {
  it('writes no query from a message, a field or an error, at any level, as valid JSON', () => {
    const written: string[] = [];
    const logger = createLogger('test', 'trace', { write: (line) => void written.push(line) });
    const error = Object.assign(new TypeError('Invalid URL'), {
      input: 'https://a.example/p?token=SECRET1',
    });
    logger.trace({ url: '/r/abc?utm=SECRET2', nested: { list: ['x.example?k=SECRET3'] } }, 'm');
    logger.error({ err: error }, 'shorten failed for /api/shorten/?url=SECRET4');
    logger.warn(new Error('Cannot GET /api/none?secret=SECRET5'));
    logger.child({ reqId: 'r' }).info({ quote: 'a?b="c\\d' }, 'escapes stay valid');

    expect(written).toHaveLength(4);
    for (const line of written) {
      expect(line).not.toMatch(/SECRET/);
      expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
    expect(JSON.parse(written[1]!)).toMatchObject({
      err: { type: 'TypeError', message: 'Invalid URL', input: 'https://a.example/p' },
      msg: 'shorten failed for /api/shorten/',
    });
    expect(JSON.parse(written[2]!)).toMatchObject({ msg: 'Cannot GET /api/none' });
  });

  it("writes no query parameter's value from a failed SQL query's error, however it is nested", () => {
    const written: string[] = [];
    const logger = createLogger('test', 'trace', { write: (line) => void written.push(line) });
    const driverError = Object.assign(new Error('invalid byte sequence'), {
      parameters: ['SECRET1'],
    });
    const failed = Object.assign(new Error('invalid byte sequence'), {
      query: 'SELECT code FROM links.links WHERE strpos(code, $1) > 0',
      parameters: ['owner', 'SECRET2\u0000'],
      driverError,
    });
    logger.error({ err: failed }, 'query failed');
    logger.child({ context: 'ExceptionsHandler' }).error({ err: failed }, 'unexpected');
    logger.error(failed);

    expect(written).toHaveLength(3);
    for (const line of written) expect(line).not.toMatch(/SECRET/);
    expect(JSON.parse(written[0]!)).toMatchObject({
      err: { message: 'invalid byte sequence', query: failed.query },
    });
  });
});
