import { decodePunycode } from './punycode';

/** A stored URL as its owner is shown it: where the short link really goes. */
export interface DisplayUrl {
  /** `new URL(raw).href`: exactly where the redirect sends visitors; for the link's href. */
  href: string;
  /**
   * The href to read: hidden characters (zero-width, right-to-left) stay percent-encoded, and
   * an internationalised host is written in Unicode unless it mixes scripts.
   */
  text: string;
  /** The host in punycode when one of its labels mixes scripts (a look-alike), else null. */
  mixedScriptHost: string | null;
}

const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Khmer',
  'Ethiopic',
  'Cherokee',
  'Mongolian',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Bopomofo',
].map((name) => ({ name, pattern: new RegExp(`^\\p{Script=${name}}$`, 'u') }));

/** Scripts that are written together (UTS #39, "highly restrictive"). */
const WRITTEN_TOGETHER = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

function scriptOf(char: string): string | null {
  // Digits, hyphens and combining marks belong to whatever they are written with.
  if (/^[\p{Script=Common}\p{Script=Inherited}]$/u.test(char)) return null;
  return SCRIPTS.find(({ pattern }) => pattern.test(char))?.name ?? 'Other';
}

/** Whether one host label mixes scripts that are not written together (аpple, with a Cyrillic а). */
export function mixesScripts(label: string): boolean {
  const scripts = new Set<string>();
  for (const char of label) {
    const script = scriptOf(char);
    if (script) scripts.add(script);
  }
  if (scripts.size <= 1) return false;
  return !WRITTEN_TOGETHER.some((allowed) => [...scripts].every((script) => allowed.has(script)));
}

/**
 * How the owner is shown a stored URL (the API gives the text as it was typed): normalised
 * as the redirect sends visitors (`new URL(raw).href`), so what the owner reads is where the
 * link goes; a host that mixes scripts stays in punycode and is marked.
 */
export function displayUrl(raw: string): DisplayUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { href: raw, text: raw, mixedScriptHost: null };
  }
  const labels = url.hostname
    .split('.')
    .map((label) => (label.startsWith('xn--') ? decodePunycode(label.slice(4)) : label));
  const readable = labels.every(
    // Invisible formatting characters (joiners, direction marks) are never shown decoded.
    (label): label is string => label !== null && !/\p{Cf}/u.test(label),
  );
  const mixed = labels.some((label) => label !== null && mixesScripts(label));
  if (!readable || mixed || url.username || url.password) {
    return { href: url.href, text: url.href, mixedScriptHost: mixed ? url.hostname : null };
  }
  const host = `${labels.join('.')}${url.port ? `:${url.port}` : ''}`;
  return {
    href: url.href,
    text: `${url.protocol}//${host}${url.pathname}${url.search}${url.hash}`,
    mixedScriptHost: null,
  };
}

/** The most characters of a URL's end that a list item keeps in sight. */
export const URL_END_LENGTH = 24;

/** A shown URL in the parts a narrow list item lays out apart. */
export interface UrlParts {
  /** 'https://': read out, not shown, since nearly every link has it. */
  scheme: string;
  /** The host (and port): kept whole, since it says whose site the link goes to. */
  host: string;
  /** The path up to its last segment: what gives way (an ellipsis) when narrow. */
  middle: string;
  /** The last path segment, query and fragment (at most URL_END_LENGTH characters): kept. */
  end: string;
}

/**
 * Splits a shown URL so that a list item keeps in sight what tells a user's links apart:
 * the host, whole, and the end of the path; the middle of the path gives way. Together the
 * parts are the whole text.
 */
export function urlParts(text: string): UrlParts {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? '';
  const rest = text.slice(scheme.length);
  const hostEnd = rest.search(/[/?#]/);
  const pathStart = hostEnd < 0 ? rest.length : hostEnd;
  const beforeQuery = rest.search(/[?#]/);
  const lastSlash = rest.lastIndexOf('/', beforeQuery < 0 ? rest.length : beforeQuery);
  let split = lastSlash >= pathStart ? lastSlash : pathStart;
  split = Math.max(split, rest.length - URL_END_LENGTH, pathStart);
  return {
    scheme,
    host: rest.slice(0, pathStart),
    middle: rest.slice(pathStart, split),
    end: rest.slice(split),
  };
}
