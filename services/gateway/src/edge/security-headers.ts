import helmet from 'helmet';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Security headers on every answer, the frontend's pages included: a CSP that allows only
 * our own scripts, no framing (clickjacking), nosniff, and a referrer policy that tells
 * other sites nothing while our own API still learns which page a call came from (the
 * 401 callBack uses it). Profile pictures come from the provider, so images may be https.
 */
export function securityHeaders(publicOrigin: string): RequestHandler {
  const https = new URL(publicOrigin).protocol === 'https:';
  return helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'frame-ancestors': ["'none'"],
        'img-src': ["'self'", 'data:', 'https:'],
        'connect-src': ["'self'"],
        // Over plain http (local runs) upgrading would break every asset.
        'upgrade-insecure-requests': https ? [] : null,
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: true } : false,
  });
}

/**
 * The same headers as plain values, for answers that do not go through Express (the /r/
 * fast path): what the middleware sets on an answer, taken once.
 */
export function securityHeaderValues(publicOrigin: string): Record<string, string> {
  const values: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: unknown) => {
      values[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete values[name.toLowerCase()];
    },
  };
  securityHeaders(publicOrigin)({} as Request, res as unknown as Response, () => undefined);
  return values;
}
