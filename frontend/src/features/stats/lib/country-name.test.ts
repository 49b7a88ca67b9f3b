import { describe, expect, it } from 'vitest';
import { countryLabel, countryName } from './country-name';

describe('countryName', () => {
  it('names a country by its code through Intl, ZZ as Unknown, an unknown code as itself', () => {
    expect(countryName('US')).toBe(new Intl.DisplayNames(undefined, { type: 'region' }).of('US'));
    expect(countryName('ZZ')).toBe('Unknown');
    expect(countryName('not a code')).toBe('not a code');
  });
});

describe('countryLabel', () => {
  it("reads 'Unknown' for ZZ, without its code (issue 37), and a country's name with its code", () => {
    expect(countryLabel('ZZ')).toBe('Unknown');
    expect(countryLabel('US')).toBe(`${countryName('US')} (US)`);
  });
});
