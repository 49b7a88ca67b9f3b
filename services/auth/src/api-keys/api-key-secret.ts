import { createHash, randomInt } from 'node:crypto';
import {
  API_KEY_ID_LENGTH,
  API_KEY_PATTERN,
  API_KEY_PREFIX,
  API_KEY_SECRET_LENGTH,
  SHORT_CODE_ALPHABET,
} from '@shortener/contracts';

function base62(length: number): string {
  let text = '';
  for (let i = 0; i < length; i += 1) text += SHORT_CODE_ALPHABET[randomInt(62)];
  return text;
}

/** A fresh key and its id: `shk_<id>_<secret>`, both parts from the cryptographic source. */
export function newApiKey(): { id: string; key: string } {
  const id = base62(API_KEY_ID_LENGTH);
  return { id, key: `${API_KEY_PREFIX}${id}_${base62(API_KEY_SECRET_LENGTH)}` };
}

export function isApiKey(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_PATTERN.test(value);
}

/**
 * The key's SHA-256, kept instead of it: 238 random bits need no slow or salted hash (which
 * would cost every lookup, or prevent it), nor a pepper.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
