import { randomInt, randomUUID } from 'node:crypto';
import type { BulkLinksResponse, CreatedApiKey } from '@shortener/contracts';
import { type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { someAddress, startUsersStack, type UsersStack } from './support/users-stack';
import { signIn } from './support/sign-in';

// Issue 37, item 1: an API key shortens on a budget of its own, per user, never the web
// page's; at the default settings (60 links a minute for the page), over the whole stack.

const run = `${Date.now()}-${randomInt(1_000_000)}`;
const USERS = {
  kim: { sub: `budget-kim-${run}`, name: 'Kim Budget', picture: '', email: 'k@example.com' },
};
const uniqueUrl = (): string => `https://example.com/budget/${randomUUID()}`;
/** SHORTEN_RATE_LIMIT_SIGNED_IN's default: the web page's links a minute. */
const PAGE_LIMIT = 60;

describe("an API key's shortening budget", () => {
  let started: UsersStack;
  let stack: Stack;
  let kim: Browser;
  let key: string;

  function withKey(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${stack.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        'x-forwarded-for': someAddress(),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  }

  beforeAll(async () => {
    // The shorten limits at their defaults; the per-address one out of the way.
    started = await startUsersStack(USERS, {
      env: { API_RATE_LIMIT: '10000' },
    });
    ({ stack } = started);
    kim = new Browser({ 'x-forwarded-for': someAddress() });
    await signIn(kim, stack.url, 'kim');
    const created = await kim.api(`${stack.url}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bulk import', scopes: ['links:write'] }),
    });
    expect(created.status).toBe(201);
    key = ((await created.json()) as CreatedApiKey).key;
  });

  afterAll(async () => {
    await started?.stop();
  });

  it("makes a 100-link batch and more than the page's 60 a minute, and its owner's page still shortens", async () => {
    const batch = await withKey('/api/links', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 100 }, () => ({ url: uniqueUrl(), days: 30 }))),
    });
    expect(batch.status).toBe(200);
    const { results } = (await batch.json()) as BulkLinksResponse;
    expect(results.map((result) => result.status)).toEqual(Array(100).fill(201));
    for (let link = 0; link < 5; link += 1) {
      const single = await withKey(`/api/shorten/?url=${encodeURIComponent(uniqueUrl())}`, {
        method: 'POST',
      });
      expect(single.status).toBe(201);
    }
    // The page's own budget is whole: every one of its 60 links this minute is made.
    for (let link = 0; link < PAGE_LIMIT; link += 1) {
      const shortened = await kim.api(
        `${stack.url}/api/shorten/?url=${encodeURIComponent(uniqueUrl())}`,
        { method: 'POST' },
      );
      expect([link, shortened.status]).toEqual([link, 201]);
    }
    // ...and it is the page's: one more is refused, while the key goes on.
    const past = await kim.api(`${stack.url}/api/shorten/?url=${encodeURIComponent(uniqueUrl())}`, {
      method: 'POST',
    });
    expect(past.status).toBe(403);
    const keyAgain = await withKey(`/api/shorten/?url=${encodeURIComponent(uniqueUrl())}`, {
      method: 'POST',
    });
    expect(keyAgain.status).toBe(201);
  });
});
