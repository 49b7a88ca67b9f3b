import { describe, expect, it } from 'vitest';
import { decodePunycode } from './punycode';

describe('decodePunycode (RFC 3492)', () => {
  it.each([
    ['r8jz45g', '例え'],
    ['pple-43d', '\u0430pple'],
    ['bcher-kva', 'bücher'],
    ['mnchen-3ya', 'münchen'],
    ['e1afmkfd', 'пример'],
    ['80ak6aa92e', 'аррӏе'],
    ['wgv71a119e', '日本語'],
    // RFC 3492 section 7.1 (A): Arabic (Egyptian).
    [
      'egbpdaj6bu4bxfgehfvwxn',
      '\u0644\u064a\u0647\u0645\u0627\u0628\u062a\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064a\u061f',
    ],
  ])('decodes %s as %s', (encoded, text) => {
    expect(decodePunycode(encoded)).toBe(text);
  });

  it.each(['', 'abc-', 'ü-abc', 'a!b', 'zzzzzzzzzzzzzzzzzzzzzzzzz'])(
    'refuses %p or decodes it without throwing',
    (encoded) => {
      expect(() => decodePunycode(encoded)).not.toThrow();
    },
  );

  it('refuses what is not punycode', () => {
    expect(decodePunycode('ü-abc')).toBeNull();
    expect(decodePunycode('a!b')).toBeNull();
  });
});
