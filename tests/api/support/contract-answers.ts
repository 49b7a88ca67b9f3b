import { publicApi, shortLinkApi, type PageRoute, type PublicRoute } from '@shortener/contracts';

/**
 * Every JSON answer the API tests receive from a call of a known entry, parsed with that
 * entry's schema for its status: an answer outside the contract fails the test that got it,
 * whatever the test itself asserts. Done here rather than by an interceptor in the services:
 * the tests run the production build (no NODE_ENV switch in the product), and this sees the
 * answer as a client does, after the edge, the proxies and the exception filters.
 */

const ENTRIES: readonly (PublicRoute | PageRoute)[] = [
  ...Object.values(publicApi),
  ...Object.values(shortLinkApi),
];

const escape = (text: string): string => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/** An entry's path as a pattern of request paths: any segment for a parameter, either slash. */
const patternOf = (path: string): RegExp =>
  new RegExp(
    `^${escape(path.replace(/\/$/, '')).replace(/\{\w+\}/g, '[^/]+')}/?$`,
    // Express routes ignore letter case.
    'i',
  );

const ROUTES = ENTRIES.map((entry) => ({ entry, pattern: patternOf(entry.path) }));

/** The entry a request is a call of, if any. */
export function entryOf(method: string, path: string): PublicRoute | PageRoute | undefined {
  return ROUTES.find(({ entry, pattern }) => entry.method === method && pattern.test(path))?.entry;
}

/**
 * Throws when `response`, the answer to `method url`, is JSON its entry's schema for that
 * status refuses. Answers of no entry, of a status the entry does not list, or not JSON are
 * let through (a 404 of an unknown path, a page, a stream).
 */
export async function checkAnswer(method: string, url: URL, response: Response): Promise<void> {
  const entry = entryOf(method.toUpperCase(), url.pathname);
  const answer = entry?.answers[response.status];
  if (!entry || !answer?.body) return;
  if (!/^application\/json\b/.test(response.headers.get('content-type') ?? '')) return;
  const parsed = answer.body.schema.safeParse(await response.clone().json());
  if (!parsed.success) {
    throw new Error(
      `${method} ${url.pathname} answered ${response.status} outside its contract ` +
        `(${entry.operationId}, ${answer.body.name}): ${parsed.error.message}`,
    );
  }
}
