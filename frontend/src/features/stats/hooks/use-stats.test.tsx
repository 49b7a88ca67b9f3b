import { act, waitFor } from '@testing-library/preact';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UNREACHABLE } from '../../../lib/api';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderHookIn } from '../../../test/render';
import { SessionProvider } from '../../auth';
import { useStats } from './use-stats';

const wrapper = ({ children }: { children: ReactNode }) => (
  <SessionProvider shell={{ signedIn: true }}>{children}</SessionProvider>
);

describe('the stats when the server cannot be reached (issue 37)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('say so, and ask again by itself every 5 s and when the browser is back online', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signIn();
    const fetchMock = mockFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const asked = () =>
      fetchMock.mock.calls.filter(([url]) => (url as string).startsWith('/api/stats/')).length;
    const { result } = renderHookIn(() => useStats('Ab3dE5g'), wrapper);
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error).toContain(UNREACHABLE);

    const before = asked();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5_000);
    });
    await waitFor(() => expect(asked()).toBe(before + 1));
    // That retry failed too, and says so, before the browser comes back online.
    await waitFor(() => expect(result.current.status).toBe('error'));
    void act(() => {
      window.dispatchEvent(new Event('online'));
    });
    await waitFor(() => expect(asked()).toBe(before + 2));
  });

  it('ask no more by themselves once the server answers, even with an error', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signIn();
    let down = true;
    const fetchMock = mockFetch(() =>
      down ? Promise.reject(new TypeError('Failed to fetch')) : jsonResponse(500, { message: 'x' }),
    );
    const asked = () =>
      fetchMock.mock.calls.filter(([url]) => (url as string).startsWith('/api/stats/')).length;
    const { result } = renderHookIn(() => useStats('Ab3dE5g'), wrapper);
    await waitFor(() => expect(result.current.error).toContain(UNREACHABLE));
    down = false;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5_000);
    });
    await waitFor(() => expect(result.current.error).toBe('Server error'));
    const after = asked();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(15_000);
    });
    expect(asked()).toBe(after);
  });
});
