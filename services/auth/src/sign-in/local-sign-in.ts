import type { GoogleIdentity } from '../users/google-identity';

/** Local users live beside Google's, never colliding with a Google subject id. */
const LOCAL_PREFIX = 'local:';
const MAX_NAME = 60;

export type LocalName = { ok: true; identity: GoogleIdentity } | { ok: false; message: string };

/** The identity of a local sign-in under the name typed into the form. */
export function localIdentity(raw: unknown): LocalName {
  const name = typeof raw === 'string' ? raw.trim().replace(/\s+/g, ' ') : '';
  if (name === '') return { ok: false, message: 'Enter a name to sign in with.' };
  if (name.length > MAX_NAME) {
    return { ok: false, message: `Use at most ${MAX_NAME} characters.` };
  }
  if (/\p{Cc}/u.test(name)) return { ok: false, message: 'Use letters, digits and spaces.' };
  return {
    ok: true,
    identity: {
      googleId: `${LOCAL_PREFIX}${name.toLowerCase()}`,
      fullName: name,
      picture: '',
      email: null,
    },
  };
}
