/** Where a page of visits ends: the last visit shown, in the order pages are read. */
export interface VisitCursor {
  createdAt: Date;
  id: string;
}

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,96}$/;
const CURSOR_BODY = /^(\d{1,16}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const MAX_TIME_MS = 8.64e15;

/** Opaque to callers (base64url), so its layout can change without breaking them. */
export function encodeCursor(cursor: VisitCursor): string {
  return Buffer.from(`${cursor.createdAt.getTime()}:${cursor.id}`).toString('base64url');
}

/** The cursor, or null when the text is not one this service made. */
export function decodeCursor(text: string): VisitCursor | null {
  if (!CURSOR_TEXT.test(text)) return null;
  const match = CURSOR_BODY.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) return null;
  const time = Number(match[1]);
  if (time > MAX_TIME_MS) return null;
  return { createdAt: new Date(time), id: match[2] };
}
