import { REQUESTED_WITH_HEADER } from '@shortener/contracts';

export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  httpOnly: boolean;
  sameSite: string | undefined;
  secure: boolean;
}

/** One Set-Cookie line, as a browser reads it. */
function parseSetCookie(
  line: string,
  requestPath: string,
): { cookie: StoredCookie; expired: boolean } | undefined {
  const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
  const equals = pair.indexOf('=');
  if (equals <= 0) return undefined;
  const cookie: StoredCookie = {
    name: pair.slice(0, equals),
    value: pair.slice(equals + 1),
    path: requestPath.slice(0, requestPath.lastIndexOf('/') + 1) || '/',
    httpOnly: false,
    sameSite: undefined,
    secure: false,
  };
  let expired = false;
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=');
    switch (key.toLowerCase()) {
      case 'path':
        cookie.path = value;
        break;
      case 'httponly':
        cookie.httpOnly = true;
        break;
      case 'secure':
        cookie.secure = true;
        break;
      case 'samesite':
        cookie.sameSite = value;
        break;
      case 'max-age':
        expired ||= Number(value) <= 0;
        break;
      case 'expires':
        expired ||= Date.parse(value) <= Date.now();
        break;
    }
  }
  return { cookie, expired };
}

/**
 * Just enough of a browser for the sign-in flow: a cookie jar (by name and path, as one
 * host sees it), no automatic redirects so each hop can be checked, and the page's API
 * headers on request.
 */
export class Browser {
  private readonly jar = new Map<string, StoredCookie>();

  constructor(private readonly headers: Record<string, string> = {}) {}

  cookie(name: string): StoredCookie | undefined {
    return [...this.jar.values()].find((cookie) => cookie.name === name);
  }

  setCookie(name: string, value: string): void {
    this.jar.set(`${name};/`, {
      name,
      value,
      path: '/',
      httpOnly: true,
      sameSite: 'Lax',
      secure: false,
    });
  }

  clearCookies(): void {
    this.jar.clear();
  }

  /** One request, redirects not followed; Set-Cookie goes into the jar. */
  async fetch(url: string, init: RequestInit & { api?: boolean } = {}): Promise<Response> {
    const target = new URL(url);
    const cookies = [...this.jar.values()]
      .filter((cookie) => target.pathname.startsWith(cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`);
    const { api, ...rest } = init;
    const response = await fetch(target, {
      ...rest,
      redirect: 'manual',
      headers: {
        ...this.headers,
        ...(api ? { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' } : {}),
        ...(cookies.length > 0 ? { cookie: cookies.join('; ') } : {}),
        ...(rest.headers as Record<string, string> | undefined),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const parsed = parseSetCookie(line, target.pathname);
      if (!parsed) continue;
      const key = `${parsed.cookie.name};${parsed.cookie.path}`;
      if (parsed.expired) this.jar.delete(key);
      else this.jar.set(key, parsed.cookie);
    }
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
