import type { Visit } from '@shortener/contracts/web';
import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { clearCachedVisitors, readCachedVisitors, writeCachedVisitors } from '../../../lib/storage';
import { useSession } from '../../auth';
import { getVisitors } from '../api/get-visitors';

export interface VisitorsState {
  visits: Visit[];
  nextCursor: string | null;
  /** 'loading' only before anything is known; a refresh keeps what is shown. */
  status: 'loading' | 'ready' | 'error';
  refreshing: boolean;
  loadingMore: boolean;
  error: string | null;
  /** No answer came: the error is 'Cannot reach the server', worth asking again by itself. */
  unreachable: boolean;
}

export interface Visitors extends VisitorsState {
  refresh: () => Promise<void>;
  loadMore: () => Promise<void>;
}

const IDLE = { refreshing: false, loadingMore: false, error: null, unreachable: false } as const;

/**
 * The visits of one link. Cached visitors are shown on first load when signed in; a refresh
 * asks the server. A 'No visitors' answer empties the list and its cache; a 401 signs out.
 */
export function useVisitors(urlID: string, onRefreshed?: () => void): Visitors {
  const { signedIn, signOut } = useSession();
  const [state, setState] = useState<VisitorsState>(() => {
    const cached = signedIn ? readCachedVisitors(urlID) : null;
    return {
      visits: cached?.visits ?? [],
      nextCursor: cached?.nextCursor ?? null,
      status: cached ? 'ready' : 'loading',
      refreshing: false,
      loadingMore: false,
      error: null,
      unreachable: false,
    };
  });
  // Only the newest request may change the list: a slow answer never overwrites a newer one.
  const latest = useRef(0);
  const refreshed = useRef(onRefreshed);
  refreshed.current = onRefreshed;

  const fetchPage = useCallback(
    async (after: { visits: Visit[]; cursor: string } | null) => {
      const request = ++latest.current;
      setState((current) => ({
        ...current,
        refreshing: after === null,
        loadingMore: after !== null,
        error: null,
        unreachable: false,
      }));
      const result = await getVisitors(urlID, after?.cursor);
      if (request !== latest.current) return;

      if (result.ok) {
        const visits = after ? appendNew(after.visits, result.data.visits) : result.data.visits;
        const { nextCursor } = result.data;
        writeCachedVisitors(urlID, { visits, nextCursor });
        // A page of rows to draw: in slices, so the page keeps answering meanwhile.
        startTransition(() => setState({ ...IDLE, visits, nextCursor, status: 'ready' }));
        if (!after) refreshed.current?.();
      } else if (result.signedOut) {
        signOut();
      } else if (result.status === 404) {
        clearCachedVisitors(urlID);
        setState({ ...IDLE, visits: [], nextCursor: null, status: 'ready' });
        refreshed.current?.();
      } else {
        setState((current) => ({
          ...current,
          refreshing: false,
          loadingMore: false,
          status: current.status === 'loading' ? 'error' : current.status,
          error: result.message,
          unreachable: result.unreachable === true,
        }));
      }
    },
    [urlID, signOut],
  );

  const refresh = useCallback(() => fetchPage(null), [fetchPage]);

  const loadMore = useCallback(async () => {
    if (!state.nextCursor || state.loadingMore) return;
    await fetchPage({ visits: state.visits, cursor: state.nextCursor });
  }, [fetchPage, state.nextCursor, state.loadingMore, state.visits]);

  // Without a cached list, the first page is fetched on arrival; a cached one stays until
  // the user refreshes. (The caller keys this hook's component by urlID.)
  const firstLoad = useRef(state.status === 'loading');
  useEffect(() => {
    if (!firstLoad.current) return;
    firstLoad.current = false;
    void refresh();
  }, [refresh]);

  return { ...state, refresh, loadMore };
}

function appendNew(shown: Visit[], page: Visit[]): Visit[] {
  const seen = new Set(shown.map((visit) => visit._id));
  return [...shown, ...page.filter((visit) => !seen.has(visit._id))];
}
