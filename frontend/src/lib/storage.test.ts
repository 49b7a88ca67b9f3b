import { describe, expect, it } from 'vitest';
import { aLink, aUser, aVisit } from '../test/fixtures';
import {
  clearAllCaches,
  clearCachedUser,
  forgetSignIn,
  isSignedIn,
  readCachedUser,
  readCachedUserPage,
  readCachedVisitors,
  removeLinkFromCachedUser,
  writeCachedUser,
  writeCachedVisitors,
} from './storage';

describe('the loggedIn cookie', () => {
  it("means signed in only when it reads 'true'", () => {
    expect(isSignedIn()).toBe(false);
    document.cookie = 'other=1; Path=/';
    document.cookie = 'loggedIn=false; Path=/';
    expect(isSignedIn()).toBe(false);
    document.cookie = 'loggedIn=true; Path=/';
    expect(isSignedIn()).toBe(true);
  });

  it('can be dropped once the server says the session is gone', () => {
    document.cookie = 'loggedIn=true; Path=/';
    forgetSignIn();
    expect(isSignedIn()).toBe(false);
  });
});

describe('cached userData', () => {
  it("round-trips under the key 'userData'", () => {
    const user = aUser();
    writeCachedUser(user);
    expect(JSON.parse(localStorage.getItem('userData') ?? 'null')).toEqual(user);
    expect(readCachedUser()).toEqual(user);
    clearCachedUser();
    expect(localStorage.getItem('userData')).toBeNull();
  });

  it('reads corrupt JSON or an unexpected shape as not cached, without throwing', () => {
    localStorage.setItem('userData', '{not json');
    expect(readCachedUser()).toBeNull();
    localStorage.setItem('userData', JSON.stringify({ fullName: 'Ada' }));
    expect(readCachedUser()).toBeNull();
    localStorage.setItem('userData', 'null');
    expect(readCachedUser()).toBeNull();
  });

  it('keeps the cursor of the next page beside the user data, and through a removal', () => {
    const user = aUser({ urls: [aLink({ urlID: 'keep123' }), aLink({ urlID: 'drop123' })] });
    writeCachedUser(user, 'next-page');
    expect(readCachedUserPage()).toEqual({ user, nextCursor: 'next-page', total: null });
    removeLinkFromCachedUser('drop123');
    expect(readCachedUserPage()?.nextCursor).toBe('next-page');
    // SPEC's shape alone (no cursor): nothing follows.
    localStorage.setItem('userData', JSON.stringify(user));
    expect(readCachedUserPage()).toEqual({ user, nextCursor: null, total: null });
    localStorage.setItem('userData', JSON.stringify({ ...user, nextCursor: 'has space' }));
    expect(readCachedUserPage()).toBeNull();
  });

  it('reads an entry with more links than a page (cached before the list was paged) as not cached', () => {
    const many = Array.from({ length: 101 }, (_, i) =>
      aLink({ urlID: `l${String(i).padStart(6, '0')}` }),
    );
    localStorage.setItem('userData', JSON.stringify(aUser({ urls: many })));
    expect(readCachedUser()).toBeNull();
    localStorage.setItem('userData', JSON.stringify(aUser({ urls: many.slice(1) })));
    expect(readCachedUser()?.urls).toHaveLength(100);
  });

  it('removes one link and keeps the others', () => {
    writeCachedUser(aUser({ urls: [aLink({ urlID: 'keep123' }), aLink({ urlID: 'drop123' })] }));
    removeLinkFromCachedUser('drop123');
    expect(readCachedUser()?.urls.map((link) => link.urlID)).toEqual(['keep123']);
  });
});

describe("cached 'visitors-{id}'", () => {
  it('round-trips the visits and the next page cursor per link, and ignores corrupt entries', () => {
    writeCachedVisitors('Ab3dE5g', { visits: [aVisit('v1')], nextCursor: 'page-2' });
    writeCachedVisitors('last123', { visits: [aVisit('v9')], nextCursor: null });
    expect(localStorage.getItem('visitors-Ab3dE5g')).not.toBeNull();
    expect(readCachedVisitors('Ab3dE5g')).toEqual({ visits: [aVisit('v1')], nextCursor: 'page-2' });
    expect(readCachedVisitors('last123')).toEqual({ visits: [aVisit('v9')], nextCursor: null });
    expect(readCachedVisitors('other12')).toBeNull();
    for (const corrupt of [
      '[{"_id": 1}]',
      '{"visits": [{"_id": 1}], "nextCursor": null}',
      '{"visits": [], "nextCursor": 7}',
      '{"visits": [], "nextCursor": "with space"}',
      '{"nextCursor": "page-2"}',
      '"page-2"',
      'null',
    ]) {
      localStorage.setItem('visitors-Ab3dE5g', corrupt);
      expect(readCachedVisitors('Ab3dE5g')).toBeNull();
    }
  });

  it('reads an entry written before the cursor was kept (a bare list) as the last page', () => {
    localStorage.setItem('visitors-Ab3dE5g', JSON.stringify([aVisit('v1'), aVisit('v2')]));
    expect(readCachedVisitors('Ab3dE5g')).toEqual({
      visits: [aVisit('v1'), aVisit('v2')],
      nextCursor: null,
    });
  });
});

describe('clearAllCaches', () => {
  it('removes userData and every visitors entry, and nothing else', () => {
    writeCachedUser(aUser());
    writeCachedVisitors('aaaaaaa', { visits: [aVisit('v1')], nextCursor: 'page-2' });
    writeCachedVisitors('bbbbbbb', { visits: [], nextCursor: null });
    localStorage.setItem('unrelated', 'stays');

    clearAllCaches();

    expect(Object.keys(localStorage)).toEqual(['unrelated']);
  });
});
