import { z } from 'zod';
import { hasNoControlCharacters } from '@shortener/contracts';

/** Who the provider says signed in, reduced to what the product keeps. */
export interface GoogleIdentity {
  googleId: string;
  fullName: string;
  picture: string;
  email: string | null;
}

// The OpenID Connect userinfo claims Google (and any OIDC provider) answers with.
// A control character is never part of a name or an address, and PostgreSQL refuses NUL: a
// line break or a tab reads as a space, any other is dropped.
const plainText = (text: string): string =>
  text
    .replace(/[\t\n\v\f\r]+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .replace(/ {2,}/g, ' ');
const claim = z.string().transform(plainText).optional();

const userinfoSchema = z.object({
  sub: z
    .union([z.string(), z.number()])
    .transform(String)
    .pipe(z.string().min(1).max(255).refine(hasNoControlCharacters)),
  name: claim,
  given_name: claim,
  family_name: claim,
  picture: z.string().optional(),
  email: claim,
});

const MAX_NAME = 200;
const MAX_PICTURE = 2048;

function pictureUrl(raw: string | undefined): string {
  if (raw === undefined || raw.length > MAX_PICTURE || !hasNoControlCharacters(raw)) return '';
  try {
    const { protocol } = new URL(raw);
    // The page puts it in an <img src>: only web addresses, never javascript: or data:.
    return protocol === 'https:' || protocol === 'http:' ? raw : '';
  } catch {
    return '';
  }
}

/** The identity in a userinfo answer, or null when it names no subject. */
export function identityFromUserinfo(json: unknown): GoogleIdentity | null {
  const parsed = userinfoSchema.safeParse(json);
  if (!parsed.success) return null;
  const claims = parsed.data;
  const joined = [claims.given_name, claims.family_name].filter(Boolean).join(' ');
  const fullName = (claims.name?.trim() || joined.trim() || claims.email || 'Google user').slice(
    0,
    MAX_NAME,
  );
  return {
    googleId: claims.sub,
    fullName,
    picture: pictureUrl(claims.picture),
    email: claims.email ?? null,
  };
}
