import { act, waitFor } from '@testing-library/preact';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { aUser, aVisit } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderHookIn } from '../../../test/render';
import { SessionProvider } from '../../auth';
import { useVisitors } from './use-visitors';

function wrapper({ children }: { children: ReactNode }) {
  return <SessionProvider>{children}</SessionProvider>;
}

describe('useVisitors', () => {
  it("keeps 'Load more' for a link with more pages when the user comes back to it", async () => {
    signIn();
    const visitorCalls: string[] = [];
    mockFetch((url) => {
      if (url === '/api/user') return jsonResponse(200, aUser());
      visitorCalls.push(url);
      return url.includes('cursor=')
        ? jsonResponse(200, [aVisit('v2')])
        : jsonResponse(200, [aVisit('v1')], { 'X-Next-Cursor': 'page-2' });
    });
    const first = renderHookIn(() => useVisitors('Ab3dE5g'), wrapper);
    await waitFor(() => expect(first.result.current.status).toBe('ready'));
    expect(first.result.current.nextCursor).toBe('page-2');
    first.unmount();

    // Back on the page: the cached first page, and where the next one starts.
    const again = renderHookIn(() => useVisitors('Ab3dE5g'), wrapper);
    expect(again.result.current).toMatchObject({
      status: 'ready',
      visits: [aVisit('v1')],
      nextCursor: 'page-2',
    });
    expect(visitorCalls).toEqual(['/api/visitors/Ab3dE5g']);

    await act(() => again.result.current.loadMore());
    expect(visitorCalls[1]).toBe('/api/visitors/Ab3dE5g?cursor=page-2');
    expect(again.result.current).toMatchObject({
      visits: [aVisit('v1'), aVisit('v2')],
      nextCursor: null,
    });
  });
});
