import type { Request } from 'express';

/**
 * Whether a request that changes who is signed in (a form posted to /auth/local or
 * /logout) comes from this product's own pages, so another site cannot sign a browser in
 * or out. Browsers send Origin on every POST; when it is missing, Sec-Fetch-Site says
 * where the request started. A client that sends neither is not a browser another site
 * can drive, and holds its own cookies.
 */
export function fromOwnOrigin(req: Request, publicOrigin: string): boolean {
  const origin = req.header('origin');
  if (origin !== undefined) return origin === new URL(publicOrigin).origin;
  const site = req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  return true;
}
