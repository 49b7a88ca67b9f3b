/**
 * The client-side check of SPEC section 5: the text, without the whitespace and line
 * breaks that pasting tends to bring along, must parse as an absolute URL. The server
 * checks the rest (scheme, length, loops) and answers with a message.
 */
export function toAbsoluteUrl(text: string): string | null {
  const candidate = text.trim();
  if (candidate === '') return null;
  try {
    new URL(candidate);
    return candidate;
  } catch {
    return null;
  }
}

/** Short links resolve at {origin}/r/{code}. */
export function shortLinkFor(code: string, origin: string = window.location.origin): string {
  return `${origin}/r/${code}`;
}

/** Splits a URL at its first '?' so the query can be shown apart from the rest. */
export function splitQuery(url: string): { base: string; query: string } {
  const index = url.indexOf('?');
  return index === -1
    ? { base: url, query: '' }
    : { base: url.slice(0, index), query: url.slice(index) };
}

/** Only web addresses become clickable links; anything else is shown as text. */
export function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
