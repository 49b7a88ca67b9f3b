import { decodePageCursor, encodePageCursor } from '@shortener/contracts';

/** The orders a user's links are listed in: newest first, or the soonest to expire first. */
export type LinkOrder = 'newest' | 'expiring';

/**
 * Where a page of a user's links ends: the last link shown, in the order pages are read. The
 * time (created, or expiring) is PostgreSQL's, in microseconds, not a JavaScript Date's
 * milliseconds: two links within one millisecond must not share a position.
 */
export interface LinkCursor {
  order: LinkOrder;
  micros: bigint;
  code: string;
}

const CURSOR_LENGTH = 120;
// Codes and aliases: letters, digits, '-' and '_' (an alias is a code like any other). A
// newest-first cursor has no prefix, as before there were other orders.
const CURSOR_BODY = /^(?:(e):)?(\d{1,17}):([A-Za-z0-9_-]{1,64})$/;

export function encodeLinkCursor(cursor: LinkCursor): string {
  const fields = [cursor.micros, cursor.code];
  return encodePageCursor(cursor.order === 'expiring' ? ['e', ...fields] : fields);
}

/** The cursor, or null when the text is not one this service made. */
export function decodeLinkCursor(text: string): LinkCursor | null {
  const match = decodePageCursor(text, CURSOR_LENGTH, CURSOR_BODY);
  if (!match?.[2] || !match[3]) return null;
  return {
    order: match[1] === 'e' ? 'expiring' : 'newest',
    micros: BigInt(match[2]),
    code: match[3],
  };
}
