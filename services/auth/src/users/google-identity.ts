import { z } from 'zod';

/** Who the provider says signed in, reduced to what the product keeps. */
export interface GoogleIdentity {
  googleId: string;
  fullName: string;
  picture: string;
  email: string | null;
}

// The OpenID Connect userinfo claims Google (and any OIDC provider) answers with.
const userinfoSchema = z.object({
  sub: z.union([z.string(), z.number()]).transform(String).pipe(z.string().min(1).max(255)),
  name: z.string().optional(),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  picture: z.string().optional(),
  email: z.string().optional(),
});

const MAX_NAME = 200;
const MAX_PICTURE = 2048;

function pictureUrl(raw: string | undefined): string {
  if (raw === undefined || raw.length > MAX_PICTURE) return '';
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
