import { useCallback, useRef, useState } from 'react';
import { useSession } from '../../auth';
import { deleteLink } from '../api/delete-link';
import { useUndoDelete } from '../undo-delete';

export interface DeleteLinkState {
  /** Resolves true once the link is gone from the server and from every cache. */
  remove: (urlID: string) => Promise<boolean>;
  /** The link being deleted, if any. */
  pending: string | null;
  error: string | null;
}

export function useDeleteLink(): DeleteLinkState {
  const { removeLink, loadUser, signOut } = useSession();
  const { offer } = useUndoDelete();
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
        // SPEC section 4: visitors cache dropped, the link out of cached userData at once
        // (removeLink does both), then the list reloaded from the server.
        removeLink(urlID);
        void loadUser({ refresh: true });
        // The server keeps it restorable a while: Undo puts it back whole.
        offer(urlID);
        return true;
      }
      if (result.signedOut) signOut();
      else setError(result.message);
      return false;
    },
    [removeLink, loadUser, signOut, offer],
  );

  return { remove, pending, error };
}
