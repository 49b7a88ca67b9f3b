import { describe, expect, it } from 'vitest';
import { aLink } from '../../test/fixtures';
import { createInput, editInput, hasOptions, NO_OPTIONS, optionsOf } from './link-options';

describe("a link's options as the forms send them", () => {
  it('sends nothing for a new link without options: shorten makes it', () => {
    expect(createInput(NO_OPTIONS)).toEqual({});
    expect(hasOptions({ ...NO_OPTIONS, ios: '  ' })).toBe(false);
  });

  it('sends what is set for a new link: destinations as URLs, countries upper case, the cap a number', () => {
    expect(
      createInput({
        ...NO_OPTIONS,
        domain: 'go.acme.example',
        ios: 'apps.apple.com/app/1',
        android: ' https://play.google.com/x ',
        geo: [
          { key: 0, country: 'gb', url: 'https://example.co.uk' },
          { key: 1, country: '', url: '' },
        ],
        password: 's3cret',
        maxVisits: '100',
      }),
    ).toEqual({
      domain: 'go.acme.example',
      ios: 'https://apps.apple.com/app/1',
      android: 'https://play.google.com/x',
      geo: { GB: 'https://example.co.uk' },
      password: 's3cret',
      maxVisits: 100,
    });
    // What is not a whole number goes as typed, for the server to refuse with its message.
    expect(createInput({ ...NO_OPTIONS, maxVisits: '1.5' })).toEqual({ maxVisits: '1.5' });
  });

  it('starts the edit form from the link, and sends only what changed, null where removed', () => {
    const link = aLink({
      domain: 'go.acme.example',
      shortUrl: 'https://go.acme.example/spring',
      ios: 'https://apps.apple.com/app/1',
      geo: { GB: 'https://example.co.uk' },
      hasPassword: true,
      maxVisits: 10,
    });
    const options = optionsOf(link);
    expect(options).toEqual({
      ...NO_OPTIONS,
      domain: 'go.acme.example',
      ios: 'https://apps.apple.com/app/1',
      geo: [{ key: 0, country: 'GB', url: 'https://example.co.uk' }],
      maxVisits: '10',
    });
    expect(editInput(options, link)).toEqual({});
    expect(
      editInput(
        {
          ...options,
          domain: '',
          ios: '',
          android: 'https://play.google.com/x',
          geo: [],
          removePassword: true,
          maxVisits: '',
        },
        link,
      ),
    ).toEqual({
      domain: null,
      ios: null,
      android: 'https://play.google.com/x',
      geo: null,
      password: null,
      maxVisits: null,
    });
    expect(editInput({ ...options, password: 'new one', maxVisits: '20' }, link)).toEqual({
      password: 'new one',
      maxVisits: 20,
    });
  });
});
