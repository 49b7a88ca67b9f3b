import { describe, expect, it } from 'vitest';
import { aLink, aUser, aVisit } from '../test/fixtures';
import {
  clearAllCaches,
  clearCachedUser,
  forgetSignIn,
  isSignedIn,
  readCachedUser,
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

  it('removes one link and keeps the others', () => {
    writeCachedUser(aUser({ urls: [aLink({ urlID: 'keep123' }), aLink({ urlID: 'drop123' })] }));
    removeLinkFromCachedUser('drop123');
    expect(readCachedUser()?.urls.map((link) => link.urlID)).toEqual(['keep123']);
  });
});

describe("cached 'visitors-{id}'", () => {
  it('round-trips per link and ignores corrupt entries', () => {
    writeCachedVisitors('Ab3dE5g', [aVisit('v1')]);
    expect(localStorage.getItem('visitors-Ab3dE5g')).not.toBeNull();
    expect(readCachedVisitors('Ab3dE5g')).toEqual([aVisit('v1')]);
    expect(readCachedVisitors('other12')).toBeNull();
    localStorage.setItem('visitors-Ab3dE5g', '[{"_id": 1}]');
    expect(readCachedVisitors('Ab3dE5g')).toBeNull();
  });
});

describe('clearAllCaches', () => {
  it('removes userData and every visitors entry, and nothing else', () => {
    writeCachedUser(aUser());
    writeCachedVisitors('aaaaaaa', [aVisit('v1')]);
    writeCachedVisitors('bbbbbbb', []);
    localStorage.setItem('unrelated', 'stays');

    clearAllCaches();

    expect(Object.keys(localStorage)).toEqual(['unrelated']);
  });
});
