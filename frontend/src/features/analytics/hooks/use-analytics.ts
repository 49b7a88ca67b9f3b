import type { AccountStats } from '@shortener/contracts/web-analytics';
import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { useRetryWhileUnreachable } from '../../../components/unreachable';
import { UNREACHABLE } from '../../../lib/api';
import { useSession } from '../../auth';
import { getAnalytics } from '../api/get-analytics';

/**
 * How often the shown numbers are asked for again while the page is in sight: the account
 * has no live stream of its own (a link's is one link's), so the page polls instead.
 */
export const ANALYTICS_REFRESH_MS = 15_000;

export interface AnalyticsState {
  stats: AccountStats | null;
  /** The query the shown numbers answer: a new one shows the old numbers while it loads. */
  shownQuery: string | null;
  /** 'loading' while the view's numbers are asked for; what was shown stays meanwhile. */
  status: 'loading' | 'ready' | 'error';
  error: string | null;
  /** No answer came: asked again by itself until one does. */
  unreachable: boolean;
  /** When the shown numbers were counted (the answer's arrival), ms. */
  updatedAt: number | null;
}

export interface Analytics extends AnalyticsState {
  retry: () => void;
}

/**
 * The account's statistics for the page's query, asked again every ANALYTICS_REFRESH_MS
 * while the page is visible, and at once when it becomes visible again.
 */
export function useAnalytics(query: Record<string, string>): Analytics {
  const { signOut } = useSession();
  const key = new URLSearchParams(query).toString();
  const [state, setState] = useState<AnalyticsState>({
    stats: null,
    shownQuery: null,
    status: 'loading',
    error: null,
    unreachable: false,
    updatedAt: null,
  });
  const [attempt, setAttempt] = useState(0);
  // Only the newest request may change what is shown.
  const latest = useRef(0);

  useEffect(() => {
    const request = ++latest.current;
    setState((current) => ({ ...current, status: 'loading', error: null }));
    void getAnalytics(Object.fromEntries(new URLSearchParams(key))).then((result) => {
      if (request !== latest.current) return;
      if (result.ok) {
        // A chart and its lists to draw: in slices, so the page keeps answering meanwhile.
        startTransition(() =>
          setState({
            stats: result.data,
            shownQuery: key,
            status: 'ready',
            error: null,
            unreachable: false,
            updatedAt: Date.now(),
          }),
        );
        return;
      }
      if (result.signedOut) signOut();
      const unreachable = result.unreachable === true;
      setState((current) => ({
        ...current,
        status: 'error',
        error: unreachable ? `${UNREACHABLE}. This page tries again by itself.` : result.message,
        unreachable,
      }));
    });
  }, [key, attempt, signOut]);

  const retry = useCallback(() => setAttempt((count) => count + 1), []);
  useRetryWhileUnreachable(state.status === 'error' && state.unreachable, retry);

  // Polled while in sight and not failing; a page back in sight counts again at once.
  const polling = state.status === 'ready';
  useEffect(() => {
    if (!polling) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') retry();
    }, ANALYTICS_REFRESH_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') retry();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [polling, retry]);

  return { ...state, retry };
}
