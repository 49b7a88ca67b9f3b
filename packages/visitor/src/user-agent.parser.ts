import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { Device } from '@shortener/contracts';
import { RecentCache } from './recent-cache';

export interface ParsedUserAgent {
  platform: string;
  browser: string;
  device: Device;
  /** What `isbot` recognises as a crawler, a preview fetcher, a script... */
  bot: boolean;
}

export const UNKNOWN = 'Unknown';

const UNKNOWN_AGENT: ParsedUserAgent = Object.freeze({
  platform: UNKNOWN,
  browser: UNKNOWN,
  device: 'other',
  bot: false,
});

/**
 * ua-parser-js names phones and tablets; a browser it knows on no such device is a desktop
 * one; consoles, TVs, watches and what it cannot place are `other`.
 */
function deviceOf(type: string | undefined, browser: string | undefined, bot: boolean): Device {
  if (bot) return 'bot';
  if (type === 'mobile' || type === 'tablet') return type;
  if (type === undefined && browser) return 'desktop';
  return 'other';
}

/**
 * What a bot calls itself, for one that no browser name fits: the word ending in bot,
 * crawler, spider or externalhit (Googlebot, bingbot, facebookexternalhit), else the
 * product at the start of a User-Agent that does not pose as Mozilla (curl/8.5.0).
 */
function botName(userAgent: string): string | null {
  const named = /\b([a-z][\w-]*?(?:bot|crawler|spider|externalhit))\b/i.exec(userAgent)?.[1];
  if (named) return named;
  const product = /^([a-z][\w.-]*)\//i.exec(userAgent)?.[1];
  return product && product !== 'Mozilla' ? product : null;
}

/**
 * User-Agent → platform, browser and device (ua-parser-js), and whether it is a bot (isbot).
 * Parsing costs more than the rest of an event's ingest and traffic repeats a few strings, so
 * results are kept in a bounded map, least recently used out first (a hit moves to the end).
 */
export class UserAgentParser {
  private readonly parser = new UAParser();
  private readonly cache: RecentCache<ParsedUserAgent>;

  constructor(maxEntries = 10_000) {
    this.cache = new RecentCache(maxEntries, (userAgent) => this.read(userAgent));
  }

  parse(userAgent: string): ParsedUserAgent {
    if (userAgent === '') return UNKNOWN_AGENT;
    return this.cache.get(userAgent);
  }

  private read(userAgent: string): ParsedUserAgent {
    this.parser.setUA(userAgent);
    const browser = this.parser.getBrowser().name;
    const bot = isbot(userAgent);
    return Object.freeze({
      platform: this.parser.getOS().name || UNKNOWN,
      // A bot is named as it names itself (Googlebot), so the visitor log and the stats
      // say which one came instead of 'Unknown'.
      browser: browser || (bot ? botName(userAgent) : null) || UNKNOWN,
      device: deviceOf(this.parser.getDevice().type, browser, bot),
      bot,
    });
  }

  get cachedEntries(): number {
    return this.cache.size;
  }
}

/** The mobile systems a link's rules may send to a destination of their own. */
export type MobileSystem = 'ios' | 'android';

/**
 * The visitor's mobile system by the platform the parser reads (as the stats name it: `iOS`,
 * `Android`); undefined for any other, a bot's included.
 */
export function mobileSystem(parser: UserAgentParser, userAgent: string): MobileSystem | undefined {
  const { platform, bot } = parser.parse(userAgent);
  if (bot) return undefined;
  if (platform === 'iOS') return 'ios';
  return platform === 'Android' ? 'android' : undefined;
}
