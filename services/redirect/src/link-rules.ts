import { redirectTarget, type LinkRules } from '@shortener/link-cache';
import { CountryLookup, mobileSystem, UserAgentParser } from '@shortener/visitor';

/** Where a redirect sends a browser, and its 302's headers, built once per looked-up link. */
export interface Destination {
  /** The Location header value: the stored URL, serialised (IDN hosts, non-ASCII paths). */
  location: string;
  /** The 302's headers (name, value, name, value...): nothing in them depends on the request. */
  headers: readonly string[];
  /** The location's parts a forwarded query is merged into, read once. */
  parts: LocationParts;
}

/** A location before its fragment, its own query's parameters, and its fragment. */
interface LocationParts {
  base: string;
  own: URLSearchParams | undefined;
  fragment: string;
}

function locationParts(location: string): LocationParts {
  const hash = location.indexOf('#');
  const base = hash === -1 ? location : location.slice(0, hash);
  const mark = base.indexOf('?');
  return {
    base,
    own: mark === -1 ? undefined : new URLSearchParams(base.slice(mark + 1)),
    fragment: hash === -1 ? '' : location.slice(hash),
  };
}

/** A link's rules as this instance applies them: each destination with its headers built. */
export interface LiveRules {
  ios?: Destination;
  android?: Destination;
  geo?: ReadonlyMap<string, Destination>;
  passwordHash?: string;
  maxVisits?: number;
}

/** The headers of a redirect to `location`. */
export function redirectHeaders(location: string): readonly string[] {
  return [
    'location',
    location,
    'cache-control',
    'private, no-store',
    'x-robots-tag',
    'noindex',
    'content-length',
    '0',
  ];
}

/** A stored URL as a destination; a refusal's reason for one no redirect may send to. */
export function destination(url: string): Destination | string {
  const target = redirectTarget(url);
  if (!target.ok) return target.reason;
  const { location } = target;
  return { location, headers: redirectHeaders(location), parts: locationParts(location) };
}

/**
 * The rules with their destinations built (undefined for none); a refusal's reason when one
 * of them may not be sent to (the link is then answered as not found, like a refused url).
 */
export function liveRules(rules: LinkRules | undefined): LiveRules | undefined | string {
  if (rules === undefined) return undefined;
  const live: LiveRules = {};
  for (const system of ['ios', 'android'] as const) {
    const url = rules[system];
    if (url === undefined) continue;
    const built = destination(url);
    if (typeof built === 'string') return built;
    live[system] = built;
  }
  if (rules.geo !== undefined) {
    const geo = new Map<string, Destination>();
    for (const [country, url] of Object.entries(rules.geo)) {
      const built = destination(url);
      if (typeof built === 'string') return built;
      geo.set(country, built);
    }
    if (geo.size > 0) live.geo = geo;
  }
  if (rules.passwordHash !== undefined) live.passwordHash = rules.passwordHash;
  if (rules.maxVisits !== undefined) live.maxVisits = rules.maxVisits;
  return live;
}

/** What picks a destination by the visitor: built on first use (a plain link needs neither). */
export interface VisitorLookups {
  userAgents: () => UserAgentParser;
  countries: () => Pick<CountryLookup, 'country'>;
}

/** Parsed User-Agents kept (a bounded map, as analytics keeps them). */
const USER_AGENTS_KEPT = 10_000;

/** Addresses whose country is kept (about 100 bytes each). */
const COUNTRIES_KEPT = 10_000;

/**
 * The lookups made on first use: the country database (read from disk, some MB) only once
 * a link with a geo rule is followed.
 */
export function visitorLookups(countryDatabase?: string): VisitorLookups {
  let userAgents: UserAgentParser | undefined;
  let countries: CountryLookup | undefined;
  return {
    userAgents: () => (userAgents ??= new UserAgentParser(USER_AGENTS_KEPT)),
    // It keeps the countries of the addresses seen last (a visitor often follows more than
    // one link), as the parser keeps User-Agents.
    countries: () => (countries ??= new CountryLookup(countryDatabase, COUNTRIES_KEPT)),
  };
}

/**
 * The destination for this visitor, by the rules after the password and the cap: the
 * device's (ios, android by User-Agent), else the country's (geo, by the client address),
 * else the link's own.
 */
export function chosenDestination(
  link: Destination,
  rules: LiveRules,
  userAgent: string | undefined,
  client: () => string,
  lookups: VisitorLookups,
): Destination {
  if ((rules.ios !== undefined || rules.android !== undefined) && userAgent) {
    const system = mobileSystem(lookups.userAgents(), userAgent);
    const chosen = system && rules[system];
    if (chosen) return chosen;
  }
  if (rules.geo !== undefined) {
    const chosen = rules.geo.get(lookups.countries().country(client()));
    if (chosen) return chosen;
  }
  return link;
}

/** A query string of only the characters RFC 3986 allows in one: forwarded as it came. */
const PLAIN_QUERY = /^[\w\-.~%!$'()*+,;=:@/?&]*$/;

/** A parameter's name as URLSearchParams reads it; undefined when it cannot be decoded. */
function parameterName(raw: string): string | undefined {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * `location` with the short link's query string (without its "?") added to its own: each of
 * the request's parameters whose name the destination does not have already, in order; the
 * destination's own parameters stay as written and win a clash; its fragment stays last. A
 * query of plain characters is added as it came, any other re-encoded (URLSearchParams).
 */
export function withQuery(location: string, query: string, parts = locationParts(location)) {
  const { base, own, fragment } = parts;
  let text = PLAIN_QUERY.test(query) ? plainAdded(query, own) : undefined;
  if (text === undefined) {
    const kept = new URLSearchParams();
    for (const [name, value] of new URLSearchParams(query)) {
      if (!own?.has(name)) kept.append(name, value);
    }
    text = kept.toString();
  }
  if (text === '') return location;
  const joint = own === undefined ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${joint}${text}${fragment}`;
}

/** The plain query's parameters the destination lacks, as they came; undefined if unreadable. */
function plainAdded(query: string, own: URLSearchParams | undefined): string | undefined {
  if (own === undefined || own.size === 0) return query.split('&').filter(Boolean).join('&');
  const kept: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = parameterName(equals === -1 ? part : part.slice(0, equals));
    if (name === undefined) return undefined;
    if (!own.has(name)) kept.push(part);
  }
  return kept.join('&');
}

/** A destination's headers with the short link's query added; the prebuilt ones without one. */
export function headersWithQuery(
  target: Destination,
  query: string | undefined,
): readonly string[] {
  if (query === undefined || query === '') return target.headers;
  const location = withQuery(target.location, query, target.parts);
  return location === target.location ? target.headers : redirectHeaders(location);
}
