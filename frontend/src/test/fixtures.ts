import type { ShortLink, UserData, Visit } from '@shortener/contracts';

const DAY = 86_400_000;

export function aLink(overrides: Partial<ShortLink> = {}): ShortLink {
  return {
    urlID: 'Ab3dE5g',
    originalUrl: 'https://example.com/articles/42?utm_source=news',
    createdAt: new Date(Date.now() - DAY).toISOString(),
    expiresAt: Date.now() + 6 * DAY,
    visitCount: 3,
    ...overrides,
  };
}

export function aUser(overrides: Partial<UserData> = {}): UserData {
  return {
    fullName: 'Ada Lovelace',
    profilePicture: 'https://lh3.googleusercontent.com/a/ada',
    urls: [aLink()],
    ...overrides,
  };
}

export function aVisit(id: string, overrides: Partial<Visit> = {}): Visit {
  return {
    _id: id,
    createdAt: '2025-03-04T05:06:07.000Z',
    userAgent: { platform: 'Android', browser: 'Chrome' },
    ipAddress: '203.0.113.7',
    ...overrides,
  };
}
