import { redirectTarget, type LinkRules } from '@shortener/link-cache';
import { CountryLookup, mobileSystem, UserAgentParser } from '@shortener/visitor';

/** Where a redirect sends a browser, and its 302's headers, built once per looked-up link. */
export interface Destination {
  /** The Location header value: the stored URL, serialised (IDN hosts, non-ASCII paths). */
  location: string;
  /** The 302's headers (name, value, name, value...): nothing in them depends on the request. */
  headers: readonly string[];
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
  return target.ok
    ? { location: target.location, headers: redirectHeaders(target.location) }
    : target.reason;
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
  countries: () => CountryLookup;
}

/** Parsed User-Agents kept (a bounded map, as analytics keeps them). */
const USER_AGENTS_KEPT = 10_000;

/**
 * The lookups made on first use: the country database (read from disk, some MB) only once
 * a link with a geo rule is followed.
 */
export function visitorLookups(countryDatabase?: string): VisitorLookups {
  let userAgents: UserAgentParser | undefined;
  let countries: CountryLookup | undefined;
  return {
    userAgents: () => (userAgents ??= new UserAgentParser(USER_AGENTS_KEPT)),
    countries: () => (countries ??= new CountryLookup(countryDatabase)),
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

/**
 * `location` with the short link's query string (without its "?") added to its own: each of
 * the request's parameters whose name the destination does not have already, in order; the
 * destination's own parameters stay as written and win a clash; its fragment stays last.
 */
export function withQuery(location: string, query: string): string {
  const added = new URLSearchParams(query);
  if (added.size === 0) return location;
  const hash = location.indexOf('#');
  const base = hash === -1 ? location : location.slice(0, hash);
  const fragment = hash === -1 ? '' : location.slice(hash);
  const mark = base.indexOf('?');
  const own = mark === -1 ? undefined : new URLSearchParams(base.slice(mark + 1));
  const kept = new URLSearchParams();
  for (const [name, value] of added) if (!own?.has(name)) kept.append(name, value);
  const text = kept.toString();
  if (text === '') return location;
  const joint = mark === -1 ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${joint}${text}${fragment}`;
}

/** A destination's headers with the short link's query added; the prebuilt ones without one. */
export function headersWithQuery(
  target: Destination,
  query: string | undefined,
): readonly string[] {
  if (query === undefined || query === '') return target.headers;
  const location = withQuery(target.location, query);
  return location === target.location ? target.headers : redirectHeaders(location);
}
