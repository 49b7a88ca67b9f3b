import { analyticsApi, type AccountStats } from '@shortener/contracts/web-analytics';
import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { useRetryWhileUnreachable } from '../../../components/unreachable';
import { UNREACHABLE } from '../../../lib/api';
import { routeUrl } from '../../../lib/api-route';
import { useSession } from '../../auth';
import { useLiveStream, type LiveStatus } from '../../stats/hooks/use-live-visits';
import { getAnalytics } from '../api/get-analytics';

/**
 * How soon the numbers are counted again after a live visit of any of the account's links:
 * one count for a burst of visits (which the filters may or may not match: only the server
 * can tell), at most about this often while visits keep coming.
 */
export const ANALYTICS_LIVE_RECOUNT_MS = 2000;

/**
 * How often the shown numbers are asked for again while the page is in sight and its live
 * stream is not open (connecting, reconnecting, or refused).
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
  /** The account's live stream (publicApi.getAnalyticsLive). */
  live: LiveStatus;
  /** A new view's numbers are on their way (a recount of the view shown is not waited on). */
  busy: boolean;
}

/**
 * The account's statistics for the page's query, counted again after live visits of its
 * links (ANALYTICS_LIVE_RECOUNT_MS), and, while the stream is not open, every
 * ANALYTICS_REFRESH_MS while the page is visible; at once when it becomes visible again.
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

  // A recount waiting after live visits; the next fetch for any reason counts them too.
  const recount = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(
    () => () => {
      clearTimeout(recount.current);
      recount.current = undefined;
    },
    [key, attempt],
  );
  const live = useLiveStream(routeUrl(analyticsApi.getAnalyticsLive), {
    onVisit: () => {
      recount.current ??= setTimeout(() => {
        recount.current = undefined;
        retry();
      }, ANALYTICS_LIVE_RECOUNT_MS);
    },
    onRefetch: retry,
  });

  // Polled while in sight, not failing and not live; a page back in sight counts again at once.
  const polling = state.status === 'ready' && live !== 'live';
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

  return {
    ...state,
    retry,
    live,
    busy: state.status === 'loading' && state.shownQuery !== key,
  };
}
