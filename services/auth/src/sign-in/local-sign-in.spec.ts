import { localAccountKey, localIdentity } from './local-sign-in';

const keyOf = (raw: string): string | null => {
  const name = localIdentity(raw);
  return name.ok ? name.identity.key : null;
};

describe('localIdentity', () => {
  it('signs in under the name given, spaces tidied; the key is case-insensitive', () => {
    const first = localIdentity('  Ada   Lovelace ');
    expect(first).toEqual({
      ok: true,
      identity: {
        key: 'local:ada lovelace',
        legacyKey: 'local:ada lovelace',
        fullName: 'Ada Lovelace',
      },
    });
    expect(keyOf('ada LOVELACE')).toBe('local:ada lovelace');
  });

  it.each([
    ['full-width letters', '\uff21da Lovelace', 'Ada Lovelace'],
    ['a ligature', '\ufb01nn', 'finn'],
    ['a non-breaking space', 'Ada\u00a0Lovelace', 'Ada Lovelace'],
  ])('folds %s into the plain spelling (NFKC)', (_what, raw, plain) => {
    const name = localIdentity(raw);
    expect(name.ok && name.identity.fullName).toBe(plain);
  });

  it.each([
    ['a Cyrillic А', '\u0410lice'],
    ['a Cyrillic а and е', 'Ali\u0441\u0435'],
    ['a Greek Α', '\u0391lice'],
    ['a capital I for an l', 'AIice'],
    ['a digit 1 for an l', 'A1ice'],
    ['a dotless ı', 'Al\u0131ce'],
  ])('keys a look-alike of Alice with %s as Alice', (_what, raw) => {
    expect(keyOf(raw)).toBe(localAccountKey('Alice'));
  });

  it('keeps the legacy key (the lower-cased name) for accounts made before', () => {
    const name = localIdentity('\u0410lice');
    expect(name.ok && name.identity.legacyKey).toBe('local:\u0430lice');
  });

  it.each([
    undefined,
    '',
    '   ',
    ['a', 'b'],
    'x'.repeat(61),
    'bad\u0000name',
    'Al\u200bice',
    'Alice\u200f',
    'Al\u202eecila',
    'Al\u2060ice',
    'Alice\ue000',
  ])('refuses %p', (raw) => {
    expect(localIdentity(raw).ok).toBe(false);
  });
});
