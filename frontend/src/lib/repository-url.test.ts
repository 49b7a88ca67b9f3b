import { describe, expect, it } from 'vitest';
import { repositoryWebUrl } from './repository-url';

describe('repositoryWebUrl', () => {
  it.each([
    [{ type: 'git', url: 'https://github.com/me/fork' }, 'https://github.com/me/fork'],
    [{ type: 'git', url: 'git+https://gitlab.com/me/fork.git' }, 'https://gitlab.com/me/fork'],
    ['https://codeberg.org/me/fork/', 'https://codeberg.org/me/fork'],
    ['github:me/fork', 'https://github.com/me/fork'],
    ['me/fork', 'https://github.com/me/fork'],
  ])('turns %j into %s', (field, expected) => {
    expect(repositoryWebUrl(field)).toBe(expected);
  });

  it.each([undefined, '', { type: 'git' }, 'git@github.com:me/fork.git', 'ssh://git@host/x'])(
    'refuses %j',
    (field) => {
      expect(() => repositoryWebUrl(field)).toThrow();
    },
  );
});
