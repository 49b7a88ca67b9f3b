import { decodeLink, encodeLink, GONE, GONE_MARKER } from './link-cache';

describe('link cache values', () => {
  it('round-trips a link, keeping every character of the URL', () => {
    const link = { url: 'https://example.com/a|b?q=1&r=ü#frag', expiresAt: 1_800_000_000_000 };
    expect(decodeLink(encodeLink(link))).toEqual(link);
  });

  it('reads the gone marker as a deleted link', () => {
    expect(decodeLink(GONE_MARKER)).toBe(GONE);
  });

  it.each([null, '', 'no-separator', '|https://x', 'abc|https://x', '123|'])(
    'treats %p as unknown',
    (value) => {
      expect(decodeLink(value)).toBeNull();
    },
  );
});
