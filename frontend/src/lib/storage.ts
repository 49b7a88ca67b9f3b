import {
  LINKS_PAGE_SIZE,
  LOGGED_IN_COOKIE,
  userDataSchema,
  visitorsResponseSchema,
  VISITS_CURSOR_PATTERN,
  type ShortLink,
  type UserData,
  type Visit,
} from '@shortener/contracts/web';
import type { Schema } from './api-route';

/**
 * Everything the browser keeps (SPEC sections 3 and 4), in one place: the 'loggedIn'
 * cookie the server sets, the cached 'userData' and one 'visitors-{id}' entry per link.
 * Reads are validated against the shared schemas, so a corrupt or outdated entry reads
 * as "not cached" instead of breaking a page.
 */
export const STORAGE_KEYS = {
  userData: 'userData',
  visitorsPrefix: 'visitors-',
  visitors: (urlID: string) => `${STORAGE_KEYS.visitorsPrefix}${urlID}`,
} as const;

export function isSignedIn(): boolean {
  return readCookie(LOGGED_IN_COOKIE) === 'true';
}

/** Drops the page-readable sign-in indicator once the server has said the session is gone. */
export function forgetSignIn(): void {
  document.cookie = `${LOGGED_IN_COOKIE}=; Max-Age=0; Path=/; SameSite=Lax`;
}

/**
 * The cached userData (SPEC's, plus the next cursor and total); one holding more links than a
 * page, from before paging, reads as not cached.
 */
const cachedUserSchema: Schema<CachedUser> = {
  safeParse(value) {
    const parsed = userDataSchema.safeParse(value);
    if (!parsed.success || parsed.data.urls.length > LINKS_PAGE_SIZE) return { success: false };
    const { nextCursor = null, total = null } = value as { nextCursor?: unknown; total?: unknown };
    if (nextCursor !== null && !isCursor(nextCursor)) return { success: false };
    if (total !== null && !isCount(total)) return { success: false };
    return { success: true, data: { user: parsed.data, nextCursor, total } };
  },
};

/** userData as cached, where the list's next page starts (null when nothing follows), and how many links there are (null when not known). */
interface CachedUser {
  user: UserData;
  nextCursor: string | null;
  total: number | null;
}

export function readCachedUser(): UserData | null {
  return readCachedUserPage()?.user ?? null;
}

export function readCachedUserPage(): CachedUser | null {
  return readJson(STORAGE_KEYS.userData, cachedUserSchema);
}

export function writeCachedUser(
  user: UserData,
  nextCursor: string | null = null,
  total: number | null = null,
): void {
  writeJson(STORAGE_KEYS.userData, {
    ...user,
    ...(nextCursor === null ? {} : { nextCursor }),
    ...(total === null ? {} : { total }),
  });
}

export function clearCachedUser(): void {
  removeItem(STORAGE_KEYS.userData);
}

export function removeLinkFromCachedUser(urlID: string): void {
  const cached = readCachedUserPage();
  if (!cached) return;
  const { user, nextCursor, total } = cached;
  const urls = user.urls.filter((link) => link.urlID !== urlID);
  const gone = urls.length < user.urls.length;
  writeCachedUser({ ...user, urls }, nextCursor, total !== null && gone ? total - 1 : total);
}

/** How many links there are, counted as the server counts them. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isCursor(value: unknown): value is string {
  return typeof value === 'string' && VISITS_CURSOR_PATTERN.test(value);
}

/**
 * A link as the server answered an edit or a restore, in the user's links: in place of the
 * one with its code, or back among them, newest first as the server lists them.
 */
export function withLink(urls: readonly ShortLink[], link: ShortLink): ShortLink[] {
  const others = urls.filter((known) => known.urlID !== link.urlID);
  const at = others.findIndex((known) => known.createdAt < link.createdAt);
  return at === -1 ? [...others, link] : [...others.slice(0, at), link, ...others.slice(at)];
}

export function putLinkInCachedUser(link: ShortLink): void {
  const cached = readCachedUserPage();
  if (!cached) return;
  const { user, nextCursor, total } = cached;
  // A link back from a delete counts again; an edited one was counted already.
  const back = !user.urls.some((known) => known.urlID === link.urlID);
  writeCachedUser(
    { ...user, urls: withLink(user.urls, link) },
    nextCursor,
    total !== null && back ? total + 1 : total,
  );
}

/** The visits shown for a link, and where the next page starts (null on the last one). */
export interface CachedVisitors {
  visits: Visit[];
  nextCursor: string | null;
}

const cachedVisitorsSchema: Schema<CachedVisitors> = {
  safeParse(value) {
    // Entries written before the cursor was kept are a bare list of visits.
    const entry: unknown = Array.isArray(value) ? { visits: value, nextCursor: null } : value;
    if (typeof entry !== 'object' || entry === null) return { success: false };
    const { visits, nextCursor } = entry as Record<string, unknown>;
    const parsed = visitorsResponseSchema.safeParse(visits);
    if (!parsed.success) return { success: false };
    if (nextCursor === null) return { success: true, data: { visits: parsed.data, nextCursor } };
    return isCursor(nextCursor)
      ? { success: true, data: { visits: parsed.data, nextCursor } }
      : { success: false };
  },
};

export function readCachedVisitors(urlID: string): CachedVisitors | null {
  return readJson(STORAGE_KEYS.visitors(urlID), cachedVisitorsSchema);
}

export function writeCachedVisitors(urlID: string, page: CachedVisitors): void {
  writeJson(STORAGE_KEYS.visitors(urlID), page);
}

export function clearCachedVisitors(urlID: string): void {
  removeItem(STORAGE_KEYS.visitors(urlID));
}

/** Signed out: nothing of the previous session stays in this browser. */
export function clearAllCaches(): void {
  clearCachedUser();
  try {
    const keys = Array.from({ length: localStorage.length }, (_, index) => localStorage.key(index));
    for (const key of keys) {
      if (key?.startsWith(STORAGE_KEYS.visitorsPrefix)) localStorage.removeItem(key);
    }
  } catch {
    // Storage unavailable (privacy mode, disabled): there is nothing to clear.
  }
}

function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

// Storage may be full, disabled or hold anything: every access fails soft.
function readJson<T>(key: string, schema: Schema<T>): T | null {
  try {
    const raw = localStorage.getItem(key);
    if (raw === null) return null;
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function writeJson(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // A cache that cannot be written is only a slower next visit.
  }
}

function removeItem(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // See writeJson.
  }
}
