import type { EditLinkBody, ShortLink } from '@shortener/contracts/web';
import { toAbsoluteUrl } from '../../lib/url';

/** One country's destination, as the form holds it (`key` keeps a row's fields its own). */
export interface GeoRow {
  key: number;
  country: string;
  url: string;
}

/**
 * Where a link lives and the rules it answers by, as the link form and the edit form hold
 * them: text as typed, '' for none.
 */
export interface LinkOptions {
  /** A verified domain's host; '' for this service's own origin. */
  domain: string;
  ios: string;
  android: string;
  geo: GeoRow[];
  /** A new password; '' keeps the one set (if any). */
  password: string;
  /** The edit form's "Remove the password". */
  removePassword: boolean;
  maxVisits: string;
}

export const NO_OPTIONS: LinkOptions = {
  domain: '',
  ios: '',
  android: '',
  geo: [],
  password: '',
  removePassword: false,
  maxVisits: '',
};

/** The options a link has now, for the edit form to start from. */
export function optionsOf(link: ShortLink): LinkOptions {
  return {
    ...NO_OPTIONS,
    domain: link.domain ?? '',
    ios: link.ios ?? '',
    android: link.android ?? '',
    geo: Object.entries(link.geo ?? {}).map(([country, url], key) => ({ key, country, url })),
    maxVisits: link.maxVisits === undefined ? '' : String(link.maxVisits),
  };
}

/** A destination as typed: a bare domain taken as https, as the URL field does; else as typed. */
const destination = (text: string): string => toAbsoluteUrl(text) ?? text.trim();

function geoOf(rows: readonly GeoRow[]): Record<string, string> {
  return Object.fromEntries(
    rows
      .filter((row) => row.country.trim() !== '' || row.url.trim() !== '')
      .map((row) => [row.country.trim().toUpperCase(), destination(row.url)]),
  );
}

/** A cap as typed: a whole number as a number; anything else as text, for the server to refuse. */
function capOf(text: string): number | string {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim();
}

/** The fields a new link adds for its options (none set: none). */
export function createInput(options: LinkOptions): Record<string, unknown> {
  const geo = geoOf(options.geo);
  return {
    ...(options.domain === '' ? {} : { domain: options.domain }),
    ...(options.ios.trim() === '' ? {} : { ios: destination(options.ios) }),
    ...(options.android.trim() === '' ? {} : { android: destination(options.android) }),
    ...(Object.keys(geo).length === 0 ? {} : { geo }),
    ...(options.password === '' ? {} : { password: options.password }),
    ...(options.maxVisits.trim() === '' ? {} : { maxVisits: capOf(options.maxVisits) }),
  };
}

/** Whether a new link needs the options' call (POST /api/links) rather than shorten's. */
export function hasOptions(options: LinkOptions): boolean {
  return Object.keys(createInput(options)).length > 0;
}

/** What an edit changes of the link's options: each field that differs, null where removed. */
export function editInput(options: LinkOptions, link: ShortLink): Partial<EditLinkBody> {
  const change: Record<string, unknown> = {};
  const text = (field: 'ios' | 'android') => {
    const now = options[field].trim() === '' ? undefined : destination(options[field]);
    if (now !== link[field]) change[field] = now ?? null;
  };
  if (options.domain !== (link.domain ?? '')) change['domain'] = options.domain || null;
  text('ios');
  text('android');
  const geo = geoOf(options.geo);
  if (JSON.stringify(geo) !== JSON.stringify(link.geo ?? {})) {
    change['geo'] = Object.keys(geo).length === 0 ? null : geo;
  }
  if (options.removePassword) change['password'] = null;
  else if (options.password !== '') change['password'] = options.password;
  const cap = options.maxVisits.trim() === '' ? undefined : capOf(options.maxVisits);
  if (cap !== link.maxVisits) change['maxVisits'] = cap ?? null;
  // What is not a number or a URL is the server's to refuse, with its message.
  return change;
}

/** A refusal about the options (its message names the field), shown with them, not the URL. */
export function isOptionsRefusal(message: string): boolean {
  return /^(domain|ios|android|geo|password|maxVisits)\b/.test(message);
}
