import { describe, expect, it } from 'vitest';
import { countryName } from './country-name';

describe('countryName', () => {
  it('names a country by its code through Intl, ZZ as Unknown, an unknown code as itself', () => {
    expect(countryName('US')).toBe(new Intl.DisplayNames(undefined, { type: 'region' }).of('US'));
    expect(countryName('ZZ')).toBe('Unknown');
    expect(countryName('not a code')).toBe('not a code');
  });
});
