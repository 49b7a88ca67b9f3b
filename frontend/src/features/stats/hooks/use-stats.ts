import {
  DEFAULT_STATS_RANGE,
  type LinkStats,
  type LiveVisit,
  type StatsRange,
} from '@shortener/contracts/web-stats';
import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { useRetryWhileUnreachable } from '../../../components/unreachable';
import { UNREACHABLE } from '../../../lib/api';
import { useSession } from '../../auth';
import { getStats } from '../api/get-stats';
import { applyVisit } from '../lib/apply-visit';

/**
 * How long after a live visit the stats are fetched again: a live visit cannot tell whether
 * its visitor is new, nor where it came from, so unique visitors and referrers are only right
 * once the server counts them (and a visit announced while an answer was on its way is
 * counted then). One fetch per burst of visits, at most this often.
 */
export const LIVE_RECOUNT_MS = 5000;

export interface StatsState {
  range: StatsRange;
  stats: LinkStats | null;
  /** 'loading' while the range's numbers are asked for; what was shown stays meanwhile. */
  status: 'loading' | 'ready' | 'error';
  error: string | null;
  /** No answer came: asked again by itself until one does. */
  unreachable: boolean;
}

export interface Stats extends StatsState {
  setRange: (range: StatsRange) => void;
  retry: () => void;
  /** Adds a visit the live stream announced (after the shown numbers were counted). */
  addVisit: (visit: LiveVisit) => void;
}

/** The stats of one link over the chosen range (7 days at first), kept up to date live. */
export function useStats(urlID: string): Stats {
  const { signOut } = useSession();
  const [state, setState] = useState<StatsState>({
    range: DEFAULT_STATS_RANGE,
    stats: null,
    status: 'loading',
    error: null,
    unreachable: false,
  });
  const [attempt, setAttempt] = useState(0);
  // Only the newest request may change what is shown.
  const latest = useRef(0);

  // A recount waiting after live visits (LIVE_RECOUNT_MS).
  const recount = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const request = ++latest.current;
    setState((current) => ({ ...current, status: 'loading', error: null }));
    void getStats(urlID, state.range).then((result) => {
      if (request !== latest.current) return;
      if (result.ok) {
        // A chart and its lists to draw: in slices, so the page keeps answering meanwhile.
        startTransition(() =>
          setState((current) => ({
            ...current,
            stats: result.data,
            status: 'ready',
            error: null,
            unreachable: false,
          })),
        );
      } else {
        if (result.signedOut) signOut();
        const unreachable = result.unreachable === true;
        setState((current) => ({
          ...current,
          status: 'error',
          // The section shows this after 'Stats could not be loaded: '.
          error: unreachable
            ? `${UNREACHABLE}. This section tries again by itself.`
            : result.message,
          unreachable,
        }));
      }
    });
    // The next fetch (or leaving the page) makes a waiting recount needless.
    return () => {
      clearTimeout(recount.current);
      recount.current = undefined;
    };
  }, [urlID, state.range, attempt, signOut]);

  const setRange = useCallback((range: StatsRange) => {
    setState((current) => (current.range === range ? current : { ...current, range }));
  }, []);
  const retry = useCallback(() => setAttempt((count) => count + 1), []);
  useRetryWhileUnreachable(state.status === 'error' && state.unreachable, retry);
  const addVisit = useCallback(
    (visit: LiveVisit) => {
      // While an answer is on its way, it may count the visit itself; the recount settles it.
      setState((current) =>
        current.status === 'ready' && current.stats
          ? { ...current, stats: applyVisit(current.stats, visit) }
          : current,
      );
      if (recount.current === undefined) {
        recount.current = setTimeout(() => {
          recount.current = undefined;
          retry();
        }, LIVE_RECOUNT_MS);
      }
    },
    [retry],
  );

  return { ...state, setRange, retry, addVisit };
}
