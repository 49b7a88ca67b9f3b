import type { LinksSort, ShortLink } from '@shortener/contracts/web';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSession } from '../../auth';
import { listLinks } from '../api/list-links';

/** How long typing pauses before a search is sent. */
const SEARCH_DEBOUNCE_MS = 300;

export interface MoreLinks {
  /** Fetches the page after the list shown and adds it (kept in memory, never cached). */
  loadMore: () => Promise<void>;
  loading: boolean;
  error: string | null;
}

/** "Load more" under the profile's list: the pages after getUser's, one at a time. */
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
  /** Whether this listing is shown instead of the session's (a search, or another order). */
  active: boolean;
  /** The links found, once their answer is in; null while it is on its way. */
  links: ShortLink[] | null;
  nextCursor: string | null;
  /** How many links the listing holds in all; null when not known. */
  total: number | null;
  loadingMore: boolean;
  error: string | null;
  loadMore: () => Promise<void>;
  /** After a delete: the link leaves the results shown. */
  forget: (urlID: string) => void;
}

interface Found {
  key: string;
  links: ShortLink[];
  nextCursor: string | null;
  total: number | null;
}

/**
 * The profile's search and orders: listLinks ?q=&sort= once typing has paused for
 * SEARCH_DEBOUNCE_MS (an order at once), only the latest listing's answer shown, its pages
 * loaded one at a time ("Load more"). The newest-first listing without a search is the
 * session's (userData), so this one stays idle for it.
 */
export function useLinkSearch(typed: string, sort: LinksSort = 'newest'): LinkSearch {
  const { signOut } = useSession();
  const query = typed.trim();
  const active = query !== '' || sort !== 'newest';
  const key = `${sort} ${query}`;
  const [found, setFound] = useState<Found | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(key);
  latest.current = key;
  const typedBefore = useRef(query);

  useEffect(() => {
    setError(null);
    if (!active) return;
    let current = true;
    // Typing waits for a pause; a new order is asked for at once.
    const delay = typedBefore.current !== query ? SEARCH_DEBOUNCE_MS : 0;
    typedBefore.current = query;
    const timer = setTimeout(() => {
      void listLinks({ q: query, sort }).then((result) => {
        if (!current) return;
        if (result.ok) setFound({ key, ...result.data });
        else if (result.signedOut) signOut();
        else setError(result.message);
      });
    }, delay);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [active, key, query, sort, signOut]);

  const shown = found && found.key === key ? found : null;

  const loadMore = useCallback(async () => {
    if (!shown?.nextCursor || loadingMore) return;
    setLoadingMore(true);
    const result = await listLinks({ q: query, sort, cursor: shown.nextCursor });
    setLoadingMore(false);
    if (latest.current !== shown.key) return;
    if (result.ok) {
      setFound((before) =>
        before && before.key === shown.key && before.nextCursor === shown.nextCursor
          ? {
              ...before,
              links: [
                ...before.links,
                ...result.data.links.filter(
                  (link) => !before.links.some((known) => known.urlID === link.urlID),
                ),
              ],
              nextCursor: result.data.nextCursor,
              total: result.data.total ?? before.total,
            }
          : before,
      );
    } else if (result.signedOut) signOut();
    else setError(result.message);
  }, [shown, loadingMore, query, sort, signOut]);

  const forget = useCallback((urlID: string) => {
    setFound((before) => {
      if (!before) return before;
      const links = before.links.filter((link) => link.urlID !== urlID);
      const gone = links.length < before.links.length;
      return {
        ...before,
        links,
        total: before.total !== null && gone ? before.total - 1 : before.total,
      };
    });
  }, []);

  return {
    query,
    active,
    links: shown?.links ?? null,
    nextCursor: shown?.nextCursor ?? null,
    total: shown?.total ?? null,
    loadingMore,
    error: active ? error : null,
    loadMore,
    forget,
  };
}
