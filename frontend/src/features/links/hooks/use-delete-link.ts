import { useCallback, useRef, useState } from 'react';
import { clearCachedVisitors } from '../../../lib/storage';
import { useSession } from '../../auth';
import { deleteLink } from '../api/delete-link';

export interface DeleteLinkState {
  /** Resolves true once the link is gone from the server and from every cache. */
  remove: (urlID: string) => Promise<boolean>;
  /** The link being deleted, if any. */
  pending: string | null;
  error: string | null;
}

export function useDeleteLink(): DeleteLinkState {
  const { removeLink, loadUser, signOut } = useSession();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);

  const remove = useCallback(
    async (urlID: string) => {
      if (busy.current) return false;
      busy.current = true;
      setPending(urlID);
      setError(null);
      const result = await deleteLink(urlID);
      busy.current = false;
      setPending(null);
      if (result.ok) {
        // SPEC section 4: visitors cache dropped, the link out of cached userData at once,
        // then the list reloaded from the server.
        clearCachedVisitors(urlID);
        removeLink(urlID);
        void loadUser({ refresh: true });
        return true;
      }
      if (result.signedOut) signOut();
      else setError(result.message);
      return false;
    },
    [removeLink, loadUser, signOut],
  );

  return { remove, pending, error };
}
