import type { ShortLink } from '@shortener/contracts/web';
import { startTransition, useCallback, useEffect, useState } from 'react';
import { useSession } from '../../auth';
import { listLinks } from '../api/list-links';

export interface LinkLookup {
  /** 'idle' when nothing is looked up; 'missing' when the user has no such live link. */
  status: 'idle' | 'loading' | 'found' | 'missing' | 'error';
  link: ShortLink | null;
  error: string | null;
  /** Asks the server again (after a live stream says visits were missed). */
  reload: () => Promise<void>;
}

/**
 * One of the user's links that is not among those loaded (an older one, opened from a search
 * or by its address): searched for by its code, the one whose code it is.
 */
export function useLinkLookup(urlID: string | null): LinkLookup {
  const { signOut } = useSession();
  const [state, setState] = useState<Omit<LinkLookup, 'reload'>>({
    status: urlID === null ? 'idle' : 'loading',
    link: null,
    error: null,
  });

  const reload = useCallback(async () => {
    if (urlID === null) return;
    const result = await listLinks({ q: urlID });
    if (result.ok) {
      const link = result.data.links.find((candidate) => candidate.urlID === urlID) ?? null;
      // The whole detail page to draw: in slices, so the page keeps answering meanwhile.
      startTransition(() => setState({ status: link ? 'found' : 'missing', link, error: null }));
    } else if (result.signedOut) {
      signOut();
    } else if (result.status === 400) {
      // Not a code any link has (too long to search for, say).
      setState({ status: 'missing', link: null, error: null });
    } else {
      setState({ status: 'error', link: null, error: result.message });
    }
  }, [urlID, signOut]);

  useEffect(() => {
    if (urlID === null) return;
    setState({ status: 'loading', link: null, error: null });
    void reload();
  }, [urlID, reload]);

  return { ...state, reload };
}
