import type { ShortLink } from '@shortener/contracts/web';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSession } from '../../auth';
import { listLinks } from '../api/list-links';

/** How long typing pauses before a search is sent. */
export const SEARCH_DEBOUNCE_MS = 300;

export interface MoreLinks {
  /** Fetches the page after the list shown and adds it (kept in memory, never cached). */
  loadMore: () => Promise<void>;
  loading: boolean;
  error: string | null;
}

/** "Load more" under the profile's list: the pages after /api/user's, one at a time. */
export function useMoreLinks(): MoreLinks {
  const { nextCursor, appendLinks, signOut } = useSession();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);

  const loadMore = useCallback(async () => {
    if (busy.current || nextCursor === null) return;
    busy.current = true;
    setLoading(true);
    setError(null);
    const result = await listLinks({ cursor: nextCursor });
    busy.current = false;
    setLoading(false);
    if (result.ok) appendLinks(nextCursor, result.data.links, result.data.nextCursor);
    else if (result.signedOut) signOut();
    else setError(result.message);
  }, [nextCursor, appendLinks, signOut]);

  return { loadMore, loading, error };
}

export interface LinkSearch {
  /** The search as typed and trimmed; '' when there is none. */
  query: string;
  /** The links found for `query`, once its answer is in; null while it is on its way. */
  links: ShortLink[] | null;
  nextCursor: string | null;
  loadingMore: boolean;
  error: string | null;
  loadMore: () => Promise<void>;
  /** After a delete: the link leaves the results shown. */
  forget: (urlID: string) => void;
}

interface Found {
  query: string;
  links: ShortLink[];
  nextCursor: string | null;
}

/**
 * The profile's search: GET /api/links?q= once typing has paused for SEARCH_DEBOUNCE_MS,
 * only the latest search's answer shown, its pages loaded one at a time ("Load more").
 */
export function useLinkSearch(typed: string): LinkSearch {
  const { signOut } = useSession();
  const query = typed.trim();
  const [found, setFound] = useState<Found | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(query);
  latest.current = query;

  useEffect(() => {
    setError(null);
    if (query === '') return;
    let current = true;
    const timer = setTimeout(() => {
      void listLinks({ q: query }).then((result) => {
        if (!current) return;
        if (result.ok) setFound({ query, ...result.data });
        else if (result.signedOut) signOut();
        else setError(result.message);
      });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [query, signOut]);

  const shown = found && found.query === query ? found : null;

  const loadMore = useCallback(async () => {
    if (!shown?.nextCursor || loadingMore) return;
    setLoadingMore(true);
    const result = await listLinks({ q: shown.query, cursor: shown.nextCursor });
    setLoadingMore(false);
    if (latest.current !== shown.query) return;
    if (result.ok) {
      setFound((before) =>
        before && before.query === shown.query && before.nextCursor === shown.nextCursor
          ? {
              ...before,
              links: [
                ...before.links,
                ...result.data.links.filter(
                  (link) => !before.links.some((known) => known.urlID === link.urlID),
                ),
              ],
              nextCursor: result.data.nextCursor,
            }
          : before,
      );
    } else if (result.signedOut) signOut();
    else setError(result.message);
  }, [shown, loadingMore, signOut]);

  const forget = useCallback((urlID: string) => {
    setFound((before) =>
      before ? { ...before, links: before.links.filter((link) => link.urlID !== urlID) } : before,
    );
  }, []);

  return {
    query,
    links: shown?.links ?? null,
    nextCursor: shown?.nextCursor ?? null,
    loadingMore,
    error: query === '' ? null : error,
    loadMore,
    forget,
  };
}
