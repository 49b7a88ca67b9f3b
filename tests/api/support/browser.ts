import { CookieJar } from 'tough-cookie';
import { REQUESTED_WITH_HEADER } from '@shortener/contracts';
import { checkAnswer } from './contract-answers';

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  httpOnly: boolean;
  /** As the jar normalises it: 'lax', 'strict', 'none', or undefined when not set. */
  sameSite: string | undefined;
  secure: boolean;
}

/**
 * The URL a cookie is stored and sent under. Browsers treat loopback as a secure context
 * (http://localhost keeps and sends Secure cookies), and the test stacks on 127.0.0.1
 * stand for the site behind its TLS proxy: so loopback is looked up as https.
 */
function jarUrl(url: URL): string {
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (!loopback || url.protocol !== 'http:') return url.toString();
  return `https://${url.host}${url.pathname}${url.search}`;
}

/** Where the test stacks answer: cookies planted by setCookie() are for this host. */
const STACK_HOST = 'http://127.0.0.1/';

/**
 * Just enough of a browser for the sign-in flow: a cookie jar (tough-cookie, RFC 6265 as
 * browsers apply it: host, path, Secure, HttpOnly, expiry, the __Host- prefix), no
 * automatic redirects so each hop can be checked, and the page's API headers on request.
 */
export class Browser {
  private readonly jar = new CookieJar();
  private lastUrl = jarUrl(new URL(STACK_HOST));

  constructor(private readonly headers: Record<string, string> = {}) {}

  /** The cookie of this name the last host asked holds, on any path. */
  cookie(name: string): StoredCookie | undefined {
    const found = this.jar
      .getCookiesSync(this.lastUrl, { allPaths: true })
      .find((cookie) => cookie.key === name);
    return (
      found && {
        name: found.key,
        value: found.value,
        path: found.path ?? '/',
        httpOnly: found.httpOnly,
        sameSite: found.sameSite,
        secure: found.secure,
      }
    );
  }

  /** Plants a session-like cookie (Path=/, HttpOnly, SameSite=Lax, Secure) for the stacks' host. */
  setCookie(name: string, value: string, url = STACK_HOST): void {
    this.jar.setCookieSync(
      `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Secure`,
      jarUrl(new URL(url)),
    );
  }

  clearCookies(): void {
    this.jar.removeAllCookiesSync();
  }

  /**
   * One request, redirects not followed; Set-Cookie goes into the jar. A JSON answer of a
   * contract entry is checked against the entry's schema (checkAnswer).
   */
  async fetch(url: string, init: RequestInit & { api?: boolean } = {}): Promise<Response> {
    const target = new URL(url);
    this.lastUrl = jarUrl(target);
    const cookies = this.jar.getCookieStringSync(this.lastUrl);
    const { api, ...rest } = init;
    const response = await fetch(target, {
      ...rest,
      redirect: 'manual',
      headers: {
        ...this.headers,
        ...(api ? { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' } : {}),
        ...(cookies !== '' ? { cookie: cookies } : {}),
        ...(rest.headers as Record<string, string> | undefined),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      // A line the jar refuses is dropped, as a browser drops it.
      this.jar.setCookieSync(line, this.lastUrl, { ignoreError: true });
    }
    await checkAnswer(rest.method ?? 'GET', target, response);
    return response;
  }

  /** An /api call as the page makes it. */
  api(url: string, init: RequestInit = {}): Promise<Response> {
    return this.fetch(url, { ...init, api: true });
  }
}

/** Where a redirect answer points, resolved against the URL that answered. */
export function locationOf(response: Response, from: string): string {
  const location = response.headers.get('location');
  if (!location) throw new Error(`expected a redirect from ${from}, got ${response.status}`);
  return new URL(location, from).toString();
}
