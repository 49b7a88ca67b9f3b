/** The campaign parameters the UTM builder writes, in the order it shows them. */
export const UTM_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign'] as const;
export type UtmParameter = (typeof UTM_PARAMETERS)[number];

/** A URL as text in three parts: before the query, the query (without '?'), the fragment ('#...'). */
function split(text: string): { base: string; query: string | null; hash: string } {
  const hashAt = text.indexOf('#');
  const beforeHash = hashAt === -1 ? text : text.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : text.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  return queryAt === -1
    ? { base: beforeHash, query: null, hash }
    : { base: beforeHash.slice(0, queryAt), query: beforeHash.slice(queryAt + 1), hash };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

const nameOf = (pair: string): string => decode(pair.split('=', 1)[0] ?? '');

/** The value of `name` in the text's query, decoded; '' when it has none. */
export function readUtm(text: string, name: UtmParameter): string {
  const { query } = split(text);
  const pair = query?.split('&').find((each) => nameOf(each) === name);
  if (pair === undefined) return '';
  const equals = pair.indexOf('=');
  return equals === -1 ? '' : decode(pair.slice(equals + 1));
}

/**
 * The text with `name` set to `value` in its query (an empty value removes it). The rest of
 * the text stays as typed, its other parameters untouched, so the URL field and the builder's
 * fields can each be edited and always agree.
 */
export function writeUtm(text: string, name: UtmParameter, value: string): string {
  const { base, query, hash } = split(text);
  const pairs = query === null || query === '' ? [] : query.split('&');
  const written = `${name}=${encodeURIComponent(value)}`;
  const at = pairs.findIndex((each) => nameOf(each) === name);
  // Set where it stood (any repeat of it dropped), or added last; removed when empty.
  const next =
    value === ''
      ? pairs.filter((each) => nameOf(each) !== name)
      : at === -1
        ? [...pairs, written]
        : pairs.flatMap((each, index) =>
            index === at ? [written] : nameOf(each) === name ? [] : [each],
          );
  return next.length === 0 ? `${base}${hash}` : `${base}?${next.join('&')}${hash}`;
}
