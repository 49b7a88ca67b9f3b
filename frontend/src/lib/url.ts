import { SHORT_LINK_PREFIX } from '@shortener/contracts/web';

/** A host with a dot in it, an optional port, then a path, query or fragment or nothing. */
const BARE_DOMAIN = /^[^\s/?#:@]+\.[^\s/?#:@]+(?::\d+)?(?:[/?#]\S*)?$/;

/**
 * The client-side check of SPEC section 5: the text, without the whitespace and line
 * breaks that pasting tends to bring along, must parse as an absolute http(s) URL. A bare
 * domain (`example.com/path`, as people copy it) is taken as https; the API itself stays
 * strict. The server checks the rest (length, loops) and answers with a message.
 */
export function toAbsoluteUrl(text: string): string | null {
  const candidate = text.trim();
  if (candidate === '') return null;
  const absolute = BARE_DOMAIN.test(candidate) ? `https://${candidate}` : candidate;
  return isWebUrl(absolute) ? absolute : null;
}

/** Short links resolve at {origin}/r/{code} (the short link's contract entry). */
export function shortLinkFor(code: string, origin: string = window.location.origin): string {
  return `${origin}${SHORT_LINK_PREFIX}${code}`;
}

/** A link's short URL: the API's own for a link on a domain, `{origin}/r/{code}` otherwise. */
export function shortUrlOf(link: { urlID: string; shortUrl?: string | undefined }): string {
  return link.shortUrl ?? shortLinkFor(link.urlID);
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
