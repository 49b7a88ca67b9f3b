import * as contracts from '@shortener/contracts';
import * as web from '@shortener/contracts/web';
import { describe, expect, it } from 'vitest';

const link = {
  urlID: 'Ab3dE5g',
  originalUrl: 'https://example.com/a?b=c',
  createdAt: '2026-01-02T03:04:05.000Z',
  expiresAt: 1_800_000_000_000,
  visitCount: 3,
};
/** A link on a branded domain with every rule (only what is set is answered). */
const branded = {
  ...link,
  domain: 'go.acme.example',
  shortUrl: 'https://go.acme.example/spring',
  ios: 'https://apps.apple.com/app/1',
  android: 'https://play.google.com/store/apps/details?id=a',
  geo: { GB: 'https://example.co.uk/', DE: 'https://example.de/' },
  hasPassword: true,
  maxVisits: 10,
};
const visit = {
  _id: 'v1',
  createdAt: '2026-01-02T03:04:05.000Z',
  userAgent: { platform: 'Linux', browser: 'Chrome' },
  ipAddress: '203.0.113.9',
};

/** Answers right and wrong, for each schema the web app reads. */
const samples = {
  userDataSchema: [
    { fullName: 'Ada', profilePicture: '', urls: [link] },
    { fullName: 'Ada', profilePicture: '', urls: [link, branded] },
    { fullName: 'Ada', profilePicture: '', urls: [{ ...branded, geo: { GB: 7 } }] },
    { fullName: 'Ada', profilePicture: '', urls: [{ ...branded, geo: 'GB' }] },
    { fullName: 'Ada', profilePicture: '', urls: [{ ...branded, hasPassword: false }] },
    { fullName: 'Ada', profilePicture: '', urls: [], extra: 'dropped' },
    { fullName: 'Ada', profilePicture: '', urls: [{ ...link, visitCount: -1 }] },
    { fullName: 'Ada', profilePicture: '', urls: [{ ...link, visitCount: 1.5 }] },
    { fullName: 'Ada', profilePicture: '', urls: [{ ...link, expiresAt: '1' }] },
    { fullName: 'Ada', urls: [] },
    { fullName: 'Ada', profilePicture: null, urls: [] },
    [],
    null,
    'text',
  ],
  shortenResponseSchema: [
    { url: 'Ab3dE5g', loggedIn: false },
    { url: 'Ab3dE5g', loggedIn: 'yes' },
    { url: 7, loggedIn: true },
    {},
  ],
  deleteResponseSchema: [{ loggedIn: true }, { loggedIn: false }, { loggedIn: 'true' }, {}],
  visitorsResponseSchema: [
    [visit, visit],
    [],
    [{ ...visit, userAgent: { platform: 'Linux' } }],
    [{ ...visit, userAgent: null }],
    { 0: visit },
  ],
  errorResponseSchema: [
    { message: 'Unauthorized access', callBack: '/login?from=%2Fprofile' },
    { message: 'Server error' },
    { message: 'x', callBack: 3 },
    { callBack: '/login' },
    undefined,
  ],
} satisfies Record<string, unknown[]>;

describe("the web app's answer checks, made from the contracts' schemas", () => {
  for (const [name, values] of Object.entries(samples)) {
    it(`${name} accepts and refuses what zod does, and keeps what zod keeps`, () => {
      const key = name as keyof typeof samples;
      for (const value of values) {
        const expected = contracts[key].safeParse(value);
        const actual = web[key].safeParse(value);
        expect(actual.success, JSON.stringify(value)).toBe(expected.success);
        if (actual.success && expected.success) expect(actual.data).toEqual(expected.data);
      }
    });
  }

  it('carries the constants as the contracts define them', () => {
    expect(web.MESSAGES).toEqual(contracts.MESSAGES);
    expect(web.EXPIRY_DAYS).toEqual(contracts.EXPIRY_DAYS);
    expect(web.VISITS_CURSOR_PATTERN.source).toBe(contracts.VISITS_CURSOR_PATTERN.source);
    expect(web.LOGGED_IN_COOKIE).toBe(contracts.LOGGED_IN_COOKIE);
  });
});
