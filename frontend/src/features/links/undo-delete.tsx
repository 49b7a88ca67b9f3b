import { createContext, useContext, type ReactNode } from 'react';
import { UndoNotice } from '../../components/undo-notice';
import { useUndoOffer, type UndoOffer } from '../../lib/use-undo-offer';
import { useSession } from '../auth';
import { restoreLink } from './api/restore-link';

const UndoDeleteContext = createContext<UndoOffer<string> | null>(null);

/**
 * Undo for a link's delete: the offer outlives the page that made it, since the detail
 * page goes back to the list after a delete (SPEC section 2). Undo puts the link back whole.
 */
export function UndoDeleteProvider({ children }: { children: ReactNode }) {
  const { putLink, signOut } = useSession();
  const value = useUndoOffer(restoreLink, putLink, signOut);
  return <UndoDeleteContext.Provider value={value}>{children}</UndoDeleteContext.Provider>;
}

export function useUndoDelete(): UndoOffer<string> {
  const context = useContext(UndoDeleteContext);
  if (!context) throw new Error('useUndoDelete must be used inside <UndoDeleteProvider>.');
  return context;
}

/** 'Link deleted.' with Undo, and the error of a failed undo beside it. */
export function UndoDeleteNotice() {
  return <UndoNotice offer={useUndoDelete()} text="Link deleted." />;
}
