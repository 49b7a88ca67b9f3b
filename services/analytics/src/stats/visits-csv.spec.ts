import { csvCell, csvLine } from './visits-csv';

describe('CSV cells', () => {
  it('leave plain values alone', () => {
    expect(csvLine(['2026-11-24T10:00:00.000Z', '203.0.113.9', 'NL', 'true'])).toBe(
      '2026-11-24T10:00:00.000Z,203.0.113.9,NL,true\r\n',
    );
    expect(csvCell('')).toBe('');
  });

  it('quote separators, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\r')).toBe('"cr\r"');
  });

  it('never start with a formula character: = + - @ get a leading apostrophe', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""x"")"`,
    );
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2')).toBe("'-2");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('a=b')).toBe('a=b');
  });
});
