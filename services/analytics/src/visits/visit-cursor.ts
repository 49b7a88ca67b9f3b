import { decodePageCursor, encodePageCursor } from '@shortener/contracts';

/** Where a page of visits ends: the last visit shown, in the order pages are read. */
export interface VisitCursor {
  createdAt: Date;
  id: string;
}

const CURSOR_LENGTH = 96;
const CURSOR_BODY = /^(\d{1,16}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const MAX_TIME_MS = 8.64e15;

export function encodeCursor(cursor: VisitCursor): string {
  return encodePageCursor([cursor.createdAt.getTime(), cursor.id]);
}

/** The cursor, or null when the text is not one this service made. */
export function decodeCursor(text: string): VisitCursor | null {
  const match = decodePageCursor(text, CURSOR_LENGTH, CURSOR_BODY);
  if (!match?.[1] || !match[2]) return null;
  const time = Number(match[1]);
  if (time > MAX_TIME_MS) return null;
  return { createdAt: new Date(time), id: match[2] };
}
