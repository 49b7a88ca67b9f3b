import { createHash } from 'node:crypto';
import { API_KEY_PATTERN, apiKeyId } from '@shortener/contracts';
import { hashApiKey, isApiKey, newApiKey } from './api-key-secret';

describe('API key secrets', () => {
  it('makes keys shk_<id>_<secret> whose id is the one given beside, each new', () => {
    const made = Array.from({ length: 200 }, () => newApiKey());
    for (const { id, key } of made) {
      expect(key).toMatch(API_KEY_PATTERN);
      expect(apiKeyId(key)).toBe(id);
      expect(isApiKey(key)).toBe(true);
    }
    expect(new Set(made.map(({ key }) => key)).size).toBe(200);
    expect(new Set(made.map(({ id }) => id)).size).toBe(200);
  });

  it('keeps the SHA-256 of the whole key, never the key', () => {
    const { key } = newApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain(key.slice(15));
  });

  it.each([
    undefined,
    42,
    '',
    'shk_',
    `shk_${'a'.repeat(10)}_${'b'.repeat(39)}`,
    `shk_${'a'.repeat(10)}-${'b'.repeat(40)}`,
  ])('takes %j for no key', (value) => {
    expect(isApiKey(value)).toBe(false);
  });
});
