import { mobileSystem, UNKNOWN, UserAgentParser } from './user-agent.parser';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX_LINUX =
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('UserAgentParser', () => {
  it('takes the platform from the OS name and the browser from the browser name', () => {
    const parser = new UserAgentParser();
    expect(parser.parse(CHROME_WINDOWS)).toMatchObject({ platform: 'Windows', browser: 'Chrome' });
    expect(parser.parse(SAFARI_IPHONE)).toMatchObject({
      platform: 'iOS',
      browser: 'Mobile Safari',
    });
    expect(parser.parse(FIREFOX_LINUX)).toMatchObject({ platform: 'Ubuntu', browser: 'Firefox' });
  });

  it('answers Unknown for what it cannot recognise, and for an empty User-Agent', () => {
    const parser = new UserAgentParser();
    expect(parser.parse('')).toEqual({
      platform: UNKNOWN,
      browser: UNKNOWN,
      device: 'other',
      bot: false,
    });
    // isbot takes a User-Agent that looks like no browser at all for a script.
    for (const garbage of ['x'.repeat(1024), 'x'.repeat(10 * 1024)]) {
      expect(parser.parse(garbage)).toEqual({
        platform: UNKNOWN,
        browser: UNKNOWN,
        device: 'bot',
        bot: true,
      });
    }
  });

  it('tells desktops, phones, tablets, bots and the rest apart', () => {
    const parser = new UserAgentParser();
    const device = (userAgent: string) => parser.parse(userAgent).device;
    expect(device(CHROME_WINDOWS)).toBe('desktop');
    expect(device(FIREFOX_LINUX)).toBe('desktop');
    expect(device(SAFARI_IPHONE)).toBe('mobile');
    expect(
      device(
        'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('tablet');
    expect(device('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')).toBe(
      'bot',
    );
    expect(device('curl/8.5.0')).toBe('bot');
    expect(
      device(
        'Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko)',
      ),
    ).toBe('other');
  });

  it('flags bots by isbot, people not', () => {
    const parser = new UserAgentParser();
    expect(
      parser.parse('Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)').bot,
    ).toBe(true);
    expect(
      parser.parse('facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)').bot,
    ).toBe(true);
    expect(parser.parse(CHROME_WINDOWS).bot).toBe(false);
    expect(parser.parse(SAFARI_IPHONE).bot).toBe(false);
    expect(parser.parse('').bot).toBe(false);
  });

  it('names a bot that no browser name fits by its own name: Googlebot as Googlebot', () => {
    const parser = new UserAgentParser();
    const browser = (userAgent: string) => parser.parse(userAgent).browser;
    expect(
      browser('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
    ).toBe('Googlebot');
    expect(browser('Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)')).toBe(
      'bingbot',
    );
    expect(browser('Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)')).toBe('Slackbot');
    expect(
      browser('facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'),
    ).toBe('facebookexternalhit');
    expect(browser('curl/8.5.0')).toBe('curl');
    expect(browser('python-requests/2.31.0')).toBe('python-requests');
    // A name the browser parser knows stays; what names nothing stays Unknown.
    expect(browser(CHROME_WINDOWS)).toBe('Chrome');
    expect(browser('x'.repeat(1024))).toBe(UNKNOWN);
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
    expect(parser.parse(CHROME_WINDOWS)).toEqual({
      platform: 'Windows',
      browser: 'Chrome',
      device: 'desktop',
      bot: false,
    });
    expect(parser.cachedEntries).toBe(0);
  });
});

describe('mobileSystem', () => {
  const parser = new UserAgentParser();
  it('names iPhones and iPads ios, Android phones and tablets android, the rest nothing', () => {
    expect(mobileSystem(parser, SAFARI_IPHONE)).toBe('ios');
    expect(
      mobileSystem(
        parser,
        'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('ios');
    expect(
      mobileSystem(
        parser,
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      ),
    ).toBe('android');
    expect(mobileSystem(parser, CHROME_WINDOWS)).toBeUndefined();
    expect(mobileSystem(parser, FIREFOX_LINUX)).toBeUndefined();
    expect(mobileSystem(parser, '')).toBeUndefined();
  });
});
