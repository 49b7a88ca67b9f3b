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

  // OWASP's CSV-injection payloads, where a spreadsheet could start a cell: at the start of
  // the value, and after a separator a spreadsheet may split on (its list separator is `;` in
  // many locales, tab when pasted) or a line break.
  const PAYLOADS = ['=1+1', '+1+1', '-1+1', '@SUM(1+1)', '\t=1+1', '\r=1+1', ' =1+1'];
  const BEFORE = ['', 'x,', 'x;', 'x\t', 'x\n', 'x;;'];

  it.each(BEFORE.flatMap((before) => PAYLOADS.map((payload) => `${before}${payload};`)))(
    'leave no cell of %j starting a formula, however a spreadsheet splits it',
    (value) => {
      for (const cell of spreadsheetCells(csvLine(['a', value, 'b']))) {
        expect(cell).not.toMatch(/^[=+\-@\t\r]/);
      }
    },
  );

  it('keep the value readable: one apostrophe before each formula start', () => {
    expect(csvCell('x;=1+1;')).toBe("x;'=1+1;");
    expect(csvCell('\t=1')).toBe("'\t'=1");
    expect(csvCell('https://a.example/?q=a-b;c@d')).toBe('https://a.example/?q=a-b;c@d');
  });
});

/**
 * The cells a spreadsheet could make of a line: split at every comma, semicolon, tab or line
 * break whatever the quoting, each piece without the quote and spaces it may start with.
 */
function spreadsheetCells(line: string): string[] {
  return line.split(/[,;\t\r\n]/).map((piece) => piece.replace(/^[" ]+/, ''));
}
