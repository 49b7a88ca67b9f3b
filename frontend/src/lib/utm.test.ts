import { describe, expect, it } from 'vitest';
import { readUtm, writeUtm } from './utm';

describe('the UTM parameters of a URL as typed', () => {
  it('reads a parameter decoded, or nothing when absent', () => {
    const url = 'https://example.com/a?x=1&utm_source=news+letter&utm_medium=e%2Dmail#top';
    expect(readUtm(url, 'utm_source')).toBe('news letter');
    expect(readUtm(url, 'utm_medium')).toBe('e-mail');
    expect(readUtm(url, 'utm_campaign')).toBe('');
    expect(readUtm('example.com', 'utm_source')).toBe('');
    expect(readUtm('https://e.com/?utm_source', 'utm_source')).toBe('');
    // A broken escape is read as it stands.
    expect(readUtm('https://e.com/?utm_source=%E0%A4', 'utm_source')).toBe('%E0%A4');
  });

  it('adds a parameter last, before the fragment, keeping the others as typed', () => {
    expect(writeUtm('https://example.com/a', 'utm_source', 'news')).toBe(
      'https://example.com/a?utm_source=news',
    );
    expect(writeUtm('example.com/a?b=c%20d#top', 'utm_medium', 'e mail')).toBe(
      'example.com/a?b=c%20d&utm_medium=e%20mail#top',
    );
    expect(writeUtm('https://example.com/?', 'utm_campaign', 'spring')).toBe(
      'https://example.com/?utm_campaign=spring',
    );
  });

  it('replaces a parameter where it stands, a repeat of it dropped', () => {
    expect(writeUtm('https://e.com/?utm_source=a&x=1&utm_source=b', 'utm_source', 'c&d')).toBe(
      'https://e.com/?utm_source=c%26d&x=1',
    );
  });

  it('removes a parameter written empty, and the ? with the last one', () => {
    expect(writeUtm('https://e.com/?x=1&utm_source=a', 'utm_source', '')).toBe(
      'https://e.com/?x=1',
    );
    expect(writeUtm('https://e.com/p?utm_source=a#f', 'utm_source', '')).toBe('https://e.com/p#f');
  });

  it('reads back what it wrote', () => {
    for (const value of ['spring sale', 'a+b', '50%', 'ünï', '?&=#']) {
      expect(readUtm(writeUtm('https://e.com/', 'utm_campaign', value), 'utm_campaign')).toBe(
        value,
      );
    }
  });
});
