/*
 * A page cursor: where a page of a list ends, as the fields of its last item joined by `:`,
 * in base64url. Opaque to callers, so each list's layout can change without breaking them.
 */

const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;

export function encodePageCursor(fields: ReadonlyArray<string | number | bigint>): string {
  return Buffer.from(fields.join(':')).toString('base64url');
}

/**
 * The fields `layout` captures in a cursor of at most `maxLength` characters, or null when
 * the text is not one that layout made.
 */
export function decodePageCursor(
  text: string,
  maxLength: number,
  layout: RegExp,
): RegExpExecArray | null {
  if (text.length > maxLength || !CURSOR_TEXT.test(text)) return null;
  return layout.exec(Buffer.from(text, 'base64url').toString('utf8'));
}
