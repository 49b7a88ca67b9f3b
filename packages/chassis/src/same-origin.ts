/** The headers a browser says where a request comes from in. */
export interface OriginHeaders {
  origin?: string | string[];
  'sec-fetch-site'?: string | string[];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Whether a request comes from this product's own pages, for what another site must not make
 * a browser do (sign in or out, open the live stream). Origin decides when sent; without it,
 * Sec-Fetch-Site says where the request started. A client that sends neither is not a
 * browser another site can drive, and holds its own cookies.
 */
export function fromOwnOrigin(headers: OriginHeaders, publicOrigin: string): boolean {
  const origin = single(headers.origin);
  if (origin !== undefined) return origin === new URL(publicOrigin).origin;
  const site = single(headers['sec-fetch-site']);
  if (site !== undefined) return site === 'same-origin';
  return true;
}
