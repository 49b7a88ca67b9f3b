import { UNKNOWN, UserAgentParser } from './user-agent.parser';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX_LINUX =
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('UserAgentParser', () => {
  it('takes the platform from the OS name and the browser from the browser name', () => {
    const parser = new UserAgentParser();
    expect(parser.parse(CHROME_WINDOWS)).toEqual({ platform: 'Windows', browser: 'Chrome' });
    expect(parser.parse(SAFARI_IPHONE)).toEqual({ platform: 'iOS', browser: 'Mobile Safari' });
    expect(parser.parse(FIREFOX_LINUX)).toEqual({ platform: 'Ubuntu', browser: 'Firefox' });
  });

  it('answers Unknown for what it cannot recognise, and for an empty User-Agent', () => {
    const parser = new UserAgentParser();
    expect(parser.parse('')).toEqual({ platform: UNKNOWN, browser: UNKNOWN });
    expect(parser.parse('curl/8.5.0')).toEqual({ platform: UNKNOWN, browser: UNKNOWN });
    expect(parser.parse('x'.repeat(1024))).toEqual({ platform: UNKNOWN, browser: UNKNOWN });
  });

  it('parses a repeated User-Agent once', () => {
    const parser = new UserAgentParser(10);
    const first = parser.parse(CHROME_WINDOWS);
    expect(parser.parse(CHROME_WINDOWS)).toBe(first);
    expect(parser.cachedEntries).toBe(1);
  });

  it('keeps at most its bound, dropping the least recently used string first', () => {
    const parser = new UserAgentParser(2);
    const chrome = parser.parse(CHROME_WINDOWS);
    parser.parse(SAFARI_IPHONE);
    parser.parse(CHROME_WINDOWS); // now the most recent
    parser.parse(FIREFOX_LINUX); // evicts Safari, not Chrome
    expect(parser.cachedEntries).toBe(2);
    expect(parser.parse(CHROME_WINDOWS)).toBe(chrome);
    const safari = parser.parse(SAFARI_IPHONE);
    expect(parser.parse(SAFARI_IPHONE)).toBe(safari);
    expect(parser.cachedEntries).toBe(2);
  });

  it('still parses with the cache turned off', () => {
    const parser = new UserAgentParser(0);
    expect(parser.parse(CHROME_WINDOWS)).toEqual({ platform: 'Windows', browser: 'Chrome' });
    expect(parser.cachedEntries).toBe(0);
  });
});
