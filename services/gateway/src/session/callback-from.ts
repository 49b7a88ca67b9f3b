import { DEFAULT_CALLBACK_FROM, safeReturnPath } from '@shortener/contracts';

/**
 * The page to come back to after signing in, for a 401's callBack: the path of the page the
 * browser is on, as its same-origin Referer tells; otherwise /profile.
 */
export function callbackFrom(referer: string | undefined, publicOrigin: string): string {
  if (!referer) return DEFAULT_CALLBACK_FROM;
  let page: URL;
  try {
    page = new URL(referer);
  } catch {
    return DEFAULT_CALLBACK_FROM;
  }
  if (page.origin !== new URL(publicOrigin).origin) return DEFAULT_CALLBACK_FROM;
  const path = `${page.pathname}${page.search}`;
  const safe = safeReturnPath(path);
  return safe === '/' && page.pathname !== '/' ? DEFAULT_CALLBACK_FROM : safe;
}
