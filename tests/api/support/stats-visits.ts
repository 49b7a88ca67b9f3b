/** User-Agents of known browsers, systems and devices, as the stats name them. */
export const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
export const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';
export const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** A person on a games console: neither desktop, phone nor tablet. */
export const CONSOLE =
  'Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko)';
/** The first line of a link's CSV export. */
export const CSV_HEADER =
  'time,ip,country,platform,browser,device,referrer,bot,utm_source,utm_medium,utm_campaign';

/**
 * A visit of a short link from this address (the stack trusts loopback's X-Forwarded-For),
 * with this User-Agent and, when given, Referer.
 */
export function visitLink(
  origin: string,
  code: string,
  ip: string,
  userAgent: string,
  referer?: string,
): Promise<Response> {
  return fetch(`${origin}/r/${code}`, {
    redirect: 'manual',
    headers: { 'user-agent': userAgent, 'x-forwarded-for': ip, ...(referer ? { referer } : {}) },
  });
}
