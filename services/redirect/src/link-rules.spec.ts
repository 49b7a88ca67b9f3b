import { CountryLookup, UserAgentParser } from '@shortener/visitor';
import {
  chosenDestination,
  destination,
  headersWithQuery,
  liveRules,
  withQuery,
  type Destination,
} from './link-rules';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const built = (url: string): Destination => destination(url) as Destination;

describe('withQuery', () => {
  it.each([
    ['https://d.example/', 'a=1', 'https://d.example/?a=1'],
    ['https://d.example/p?a=1&b=2', 'b=9&c=3', 'https://d.example/p?a=1&b=2&c=3'],
    ['https://d.example/p?x=%20y#frag', 'z=1', 'https://d.example/p?x=%20y&z=1#frag'],
    ['https://d.example/p?', 'z=1', 'https://d.example/p?z=1'],
    ['https://d.example/p?a=1&', 'z=1', 'https://d.example/p?a=1&z=1'],
    ['https://d.example/p?a=1', 'a=2&a=3', 'https://d.example/p?a=1'],
    ['https://d.example/p', 'q=a+b&r=%C3%BC&s', 'https://d.example/p?q=a+b&r=%C3%BC&s'],
    ['https://d.example/p', 'r=\u00fc&t="x"', 'https://d.example/p?r=%C3%BC&t=%22x%22'],
    ['https://d.example/p?a%20b=1', 'a+b=2&c=3', 'https://d.example/p?a%20b=1&c=3'],
    ['https://d.example/p?a=1', 'b%E0=1&a=2', 'https://d.example/p?a=1&b%EF%BF%BD=1'],
    ['https://d.example/p', '&&x=1&', 'https://d.example/p?x=1'],
    ['https://d.example/p', '', 'https://d.example/p'],
  ])('%s with ?%s is %s', (location, query, expected) => {
    expect(withQuery(location, query)).toBe(expected);
  });

  it('keeps the prebuilt headers when there is nothing to add', () => {
    const target = built('https://d.example/p?a=1');
    expect(headersWithQuery(target, undefined)).toBe(target.headers);
    expect(headersWithQuery(target, 'a=5')).toBe(target.headers);
    expect(headersWithQuery(target, 'b=5')[1]).toBe('https://d.example/p?a=1&b=5');
  });
});

describe('the rules of a link', () => {
  const lookups = {
    userAgents: () => new UserAgentParser(),
    countries: () => new CountryLookup(),
  };
  const link = built('https://d.example/');
  const rules = liveRules({
    ios: 'https://apps.example/ios',
    geo: { US: 'https://d.example/us' },
  });
  if (typeof rules !== 'object') throw new Error('rules refused');

  it('chooses the device first, then the country, then the url', () => {
    const choose = (userAgent: string, address: string) =>
      chosenDestination(link, rules, userAgent, () => address, lookups).location;
    expect(choose(IPHONE, '8.8.8.8')).toBe('https://apps.example/ios');
    expect(choose(DESKTOP, '8.8.8.8')).toBe('https://d.example/us');
    expect(choose(DESKTOP, '193.0.14.129')).toBe('https://d.example/');
  });

  it('refuses rules with a destination no redirect may send to', () => {
    expect(liveRules({ android: 'javascript:alert(1)' })).toBe(
      'Only http and https URLs can be shortened.',
    );
    expect(liveRules({ geo: { GB: 'http://127.0.0.1/' } })).toEqual(expect.any(String));
    expect(liveRules(undefined)).toBeUndefined();
  });
});
