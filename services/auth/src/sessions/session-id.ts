import { createHash, randomBytes } from 'node:crypto';
import { SESSION_ID_PATTERN } from '@shortener/contracts';

/** A fresh session id: 32 bytes from the cryptographic source, base64url (43 characters). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID_PATTERN.test(value);
}

/** What the database keeps instead of the id itself. */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
