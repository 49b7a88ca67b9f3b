import { BadRequestException } from '@nestjs/common';
import {
  LINK_PASSWORD_MAX,
  LINK_RULES_MESSAGES,
  MAX_VISITS_MAX,
  type LinkRuleField,
} from '@shortener/contracts';
import { checkTargetUrl, hashLinkPassword } from '@shortener/link-cache';

/** A rule's column as a change writes it: a value sets it, null clears it. */
export interface RuleColumns {
  ios_url: string | null;
  android_url: string | null;
  geo_urls: Record<string, string> | null;
  password_hash: string | null;
  max_visits: number | null;
}

/** The columns a change sets or clears; a rule left out of the request is left out here. */
export type RulesChange = Partial<RuleColumns>;

const COLUMN_OF = {
  ios: 'ios_url',
  android: 'android_url',
  geo: 'geo_urls',
  password: 'password_hash',
  maxVisits: 'max_visits',
} as const satisfies Record<LinkRuleField, keyof RuleColumns>;

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** An ISO 3166-1 alpha-2 code ICU names (not a private-use one such as XX or ZZ). */
function isCountry(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  const name = REGIONS.of(code);
  return name !== undefined && name !== 'Unknown Region';
}

const refuse = (message: string) => new BadRequestException(message);

/** A rule's destination, by url's rules; refused with url's message after the field's name. */
function ruleUrl(field: string, raw: unknown, ownHosts: readonly string[]): string {
  const target = checkTargetUrl(raw, ownHosts);
  if (!target.ok) throw refuse(LINK_RULES_MESSAGES.url(field, target.message));
  return target.url;
}

function geoUrls(raw: unknown, ownHosts: readonly string[]): Record<string, string> | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw refuse(LINK_RULES_MESSAGES.geo);
  }
  const entries = Object.entries(raw as Record<string, unknown>);
  // An empty map sends nobody anywhere: the same as none.
  if (entries.length === 0) return null;
  const geo: Record<string, string> = {};
  for (const [given, url] of entries) {
    const country = given.toUpperCase();
    if (!isCountry(country)) throw refuse(LINK_RULES_MESSAGES.country(given));
    geo[country] = ruleUrl(`geo.${country}`, url, ownHosts);
  }
  return geo;
}

/**
 * The rules of a create or an edit, each checked (a 400 naming the field), the password hashed:
 * a rule given null is cleared, one not given is left out. Checked before anything is written,
 * so a refused request changes nothing.
 */
export async function readRules(
  body: Partial<Record<LinkRuleField, unknown>>,
  ownHosts: readonly string[],
): Promise<RulesChange> {
  const change: RulesChange = {};
  for (const field of Object.keys(COLUMN_OF) as LinkRuleField[]) {
    const raw = body[field];
    if (raw === undefined) continue;
    const column = COLUMN_OF[field];
    if (raw === null) {
      change[column] = null;
      continue;
    }
    switch (field) {
      case 'ios':
      case 'android':
        change[column as 'ios_url' | 'android_url'] = ruleUrl(field, raw, ownHosts);
        break;
      case 'geo':
        change.geo_urls = geoUrls(raw, ownHosts);
        break;
      case 'password':
        if (typeof raw !== 'string' || raw.length < 1 || raw.length > LINK_PASSWORD_MAX) {
          throw refuse(LINK_RULES_MESSAGES.password);
        }
        change.password_hash = null; // hashed below, once every rule is known good
        break;
      case 'maxVisits':
        if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_VISITS_MAX) {
          throw refuse(LINK_RULES_MESSAGES.maxVisits);
        }
        change.max_visits = raw;
        break;
    }
  }
  if (typeof body.password === 'string') {
    change.password_hash = await hashLinkPassword(body.password);
  }
  return change;
}
