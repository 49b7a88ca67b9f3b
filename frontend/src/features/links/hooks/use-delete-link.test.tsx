import { act, waitFor } from '@testing-library/preact';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { readCachedUser, writeCachedUser } from '../../../lib/storage';
import { aLink, aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderHookIn } from '../../../test/render';
import { SessionProvider, useSession } from '../../auth';
import { UndoDeleteProvider } from '../undo-delete';
import { useDeleteLink } from './use-delete-link';

const kept = aLink({ urlID: 'Keep123' });
const deleted = aLink({ urlID: 'Gone456' });

function wrapper({ children }: { children: ReactNode }) {
  return (
    <SessionProvider>
      <UndoDeleteProvider>{children}</UndoDeleteProvider>
    </SessionProvider>
  );
}

describe('useDeleteLink', () => {
  it('wins over a user refresh that began before it and answers after it with the old list', async () => {
    signIn();
    writeCachedUser(aUser({ urls: [kept, deleted] }));
    // The first GET /api/user is held until the test lets it answer, with the list from
    // before the delete; any later one gets the list the server has after it.
    let answerOldList: () => void = () => undefined;
    const userCalls: string[] = [];
    mockFetch((url) => {
      if (url.startsWith('/api/delete/')) return jsonResponse(200, { loggedIn: true });
      userCalls.push(url);
      if (userCalls.length === 1) {
        return new Promise((resolve) => {
          answerOldList = () => resolve(jsonResponse(200, aUser({ urls: [kept, deleted] })));
        });
      }
      return jsonResponse(200, aUser({ urls: [kept] }));
    });
    const { result } = renderHookIn(
      () => ({ session: useSession(), remove: useDeleteLink() }),
      wrapper,
    );

    let refresh: Promise<void> = Promise.resolve();
    void act(() => {
      refresh = result.current.session.loadUser({ refresh: true });
    });
    await act(async () => {
      expect(await result.current.remove.remove(deleted.urlID)).toBe(true);
    });
    await act(async () => {
      answerOldList();
      await refresh;
    });

    await waitFor(() => expect(result.current.session.status).toBe('ready'));
    const ids = (urls: { urlID: string }[] | undefined) => urls?.map((link) => link.urlID);
    expect(ids(result.current.session.user?.urls)).toEqual([kept.urlID]);
    expect(ids(readCachedUser()?.urls)).toEqual([kept.urlID]);
  });
});
