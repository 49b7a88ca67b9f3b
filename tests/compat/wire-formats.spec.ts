import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsedNonces, verifyInternalToken, type SignedRequest } from '@shortener/chassis';
import { decodeVisits, internalApi, type InternalApi, type VisitEvent } from '@shortener/contracts';
import {
  decodeInvalidation,
  decodeLink,
  decodeVersioned,
  decodeVersionNotice,
  GONE,
  isVersionNotice,
  linkCacheKey,
  RefusedEntry,
} from '@shortener/link-cache';

// The previous release's wire formats, as its own build made them (scripts/record-wire-formats.mjs
// writes the fixture from the commit in previous-release.json), accepted by this release's code:
// during a rolling update, and after a rollback, the pods of both run side by side
// (docs/operations/upgrades.md, "Rolling upgrades: what a release may change").

interface Fixture {
  commit: string;
  secret: string;
  tokens: Array<{
    identity: { userId: string | null };
    request: SignedRequest & { body?: string };
    issuedAt: number;
    token: string;
  }>;
  cacheEntries: Array<{
    code: string;
    /** Null for a deleted link's gone marker. */
    link: { url: string; expiresAt: number; version: number } | null;
    version: number;
    leaseUntil: number;
    value: string;
  }>;
  invalidations: Array<{ message: string; code: string; removed: boolean }>;
  versionNotices: Array<{ message: string; code: string; version: number }>;
  visitMessages: Array<{ form: string; events: VisitEvent[]; value: string }>;
  answers: Array<{ endpoint: keyof InternalApi; status: number; body?: unknown }>;
}

const fixture = JSON.parse(
  readFileSync(path.join(__dirname, 'fixtures', 'previous-release.json'), 'utf8'),
) as Fixture;
const release = JSON.parse(readFileSync(path.join(__dirname, 'previous-release.json'), 'utf8')) as {
  commit: string;
};

describe("the previous release's wire formats", () => {
  it('were recorded from the previous release named in previous-release.json', () => {
    expect(fixture.commit).toBe(release.commit);
  });

  it.each(
    fixture.tokens.map((token) => [token.request.method, token.request.path, token] as const),
  )(
    'its internal token for %s %s is accepted, once',
    (_method, _path, { identity, request, issuedAt, token }) => {
      const verified = verifyInternalToken(fixture.secret, token, request, issuedAt + 1_000);
      expect(verified?.identity).toEqual(identity);
      const nonces = new UsedNonces();
      expect(nonces.claim(verified!.nonce, verified!.expiresAt, issuedAt)).toBe(true);
      expect(nonces.claim(verified!.nonce, verified!.expiresAt, issuedAt)).toBe(false);
      // Still bound to its request: another body or path is refused.
      expect(
        verifyInternalToken(
          fixture.secret,
          token,
          { ...request, path: '/internal/other' },
          issuedAt,
        ),
      ).toBeNull();
    },
  );

  it.each(fixture.cacheEntries.map((entry) => [entry.code, entry] as const))(
    'its link cache entry for %s reads as it was written, with its version and lease',
    (code, { link, version, leaseUntil, value }) => {
      const key = linkCacheKey(fixture.secret);
      expect(decodeVersioned(key, code, value)).toEqual({
        entry: link ?? GONE,
        version,
        leaseUntil,
      });
      expect(decodeLink(key, code, value)).toEqual(link ?? GONE);
      // Signed for its code with the shared secret: under another code or secret it is refused.
      expect(decodeLink(key, 'Other12', value)).toBeInstanceOf(RefusedEntry);
      expect(decodeLink(linkCacheKey('another secret'), code, value)).toBeInstanceOf(RefusedEntry);
    },
  );

  it.each(fixture.invalidations.map((entry) => [entry.message, entry] as const))(
    'its invalidation %p reads as the removal or change it was',
    (message, { code, removed }) => {
      expect(decodeInvalidation(message)).toEqual({ code, removed });
    },
  );

  it.each(fixture.versionNotices.map((notice) => [notice.message, notice] as const))(
    'its version notice %p reads as the version it announced, under its secret only',
    (message, { code, version }) => {
      expect(isVersionNotice(message)).toBe(true);
      expect(decodeVersionNotice([linkCacheKey(fixture.secret)], message)).toEqual({
        code,
        version,
      });
      expect(decodeVersionNotice([linkCacheKey('another secret')], message)).toBeNull();
    },
  );

  it.each(fixture.visitMessages.map((message) => [message.form, message] as const))(
    'its visit message (%s) decodes to the events it was made of',
    (_form, { events, value }) => {
      const decoded = decodeVisits(Buffer.from(value, 'base64'));
      expect(decoded.ok).toBe(true);
      if (!decoded.ok) return;
      expect(decoded.events).toEqual(events.map((event) => ({ ok: true, event })));
    },
  );

  it.each(fixture.answers.map((answer) => [answer.endpoint, answer.status, answer] as const))(
    'its %s answer %i is one this release expects',
    (endpoint, status, { body }) => {
      const schema = (
        internalApi[endpoint].answers as Record<
          number,
          { safeParse(value: unknown): { success: boolean; error?: unknown } } | undefined
        >
      )[status];
      expect(schema).toBeDefined();
      const parsed = schema!.safeParse(body);
      expect(parsed.error).toBeUndefined();
    },
  );
});
