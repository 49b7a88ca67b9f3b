import { isShortCode } from '@shortener/contracts';
import { generateShortCode } from './short-code';

describe('generateShortCode', () => {
  it('makes 7-character base62 codes', () => {
    for (let i = 0; i < 1000; i += 1) expect(isShortCode(generateShortCode())).toBe(true);
  });

  it('uses the whole alphabet and does not repeat itself', () => {
    const codes = Array.from({ length: 5000 }, generateShortCode);
    expect(new Set(codes).size).toBe(codes.length);
    const characters = new Set(codes.join(''));
    expect(characters.size).toBe(62);
  });
});
