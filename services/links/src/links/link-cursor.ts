/**
 * Where a page of a user's links ends: the last link shown, in the order pages are read
 * (newest first). The time is PostgreSQL's, in microseconds, not a JavaScript Date's
 * milliseconds: two links created within one millisecond must not share a position.
 */
export interface LinkCursor {
  createdMicros: bigint;
  code: string;
}

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,120}$/;
// Codes and aliases: letters, digits, '-' and '_' (an alias is a code like any other).
const CURSOR_BODY = /^(\d{1,17}):([A-Za-z0-9_-]{1,64})$/;

/** Opaque to callers (base64url), so its layout can change without breaking them. */
export function encodeLinkCursor(cursor: LinkCursor): string {
  return Buffer.from(`${cursor.createdMicros}:${cursor.code}`).toString('base64url');
}

/** The cursor, or null when the text is not one this service made. */
export function decodeLinkCursor(text: string): LinkCursor | null {
  if (!CURSOR_TEXT.test(text)) return null;
  const match = CURSOR_BODY.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) return null;
  return { createdMicros: BigInt(match[1]), code: match[2] };
}
