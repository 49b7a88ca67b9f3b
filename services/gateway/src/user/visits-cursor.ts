import { decodePageCursor, encodePageCursor } from '@shortener/contracts';

/**
 * Where a page of a user's links, the most visited first, ends: the visit count and code of
 * the last link shown (ties are ordered by code). Opaque to callers (base64url), as the links
 * service's cursors are, and told apart from them by its `v:`.
 */
interface VisitsCursor {
  visits: number;
  code: string;
}

const CURSOR_LENGTH = 120;
const CURSOR_BODY = /^v:(\d{1,15}):([A-Za-z0-9_-]{1,64})$/;

export function encodeVisitsCursor(cursor: VisitsCursor): string {
  return encodePageCursor(['v', cursor.visits, cursor.code]);
}

/** The cursor, or null when the text is not one this order made. */
export function decodeVisitsCursor(text: string): VisitsCursor | null {
  const match = decodePageCursor(text, CURSOR_LENGTH, CURSOR_BODY);
  if (!match?.[1] || !match[2]) return null;
  return { visits: Number(match[1]), code: match[2] };
}

/** Most visited first; among links visited as often, by code (as PostgreSQL's C order would). */
export function byVisits(a: VisitsCursor, b: VisitsCursor): number {
  if (a.visits !== b.visits) return b.visits - a.visits;
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}
