import { DELETE_UNDO_OFFER_MS } from '@shortener/contracts/web';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useSession } from '../auth';
import { restoreLink } from './api/restore-link';
import './components/undo-delete.css';

interface UndoDelete {
  /** The link just deleted, while its Undo is offered. */
  deleted: string | null;
  /** Offers Undo for the link just deleted, for DELETE_UNDO_OFFER_MS (the server keeps it longer). */
  offer: (urlID: string) => void;
  undo: () => Promise<void>;
  dismiss: () => void;
  /** While the pointer or the focus is on the offer it stays (WCAG 2.2.1); it ends in full time after. */
  hold: (held: boolean) => void;
  pending: boolean;
  error: string | null;
}

const UndoDeleteContext = createContext<UndoDelete | null>(null);

/**
 * Undo for a delete: the offer outlives the page that made it, since the detail
 * page goes back to the list after a delete (SPEC section 2).
 */
export function UndoDeleteProvider({ children }: { children: ReactNode }) {
  const { putLink, signOut } = useSession();
  const [deleted, setDeleted] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const dismiss = useCallback(() => {
    clearTimeout(timer.current);
    setDeleted(null);
    setError(null);
  }, []);

  const offer = useCallback(
    (urlID: string) => {
      clearTimeout(timer.current);
      setDeleted(urlID);
      setError(null);
      timer.current = setTimeout(dismiss, DELETE_UNDO_OFFER_MS);
    },
    [dismiss],
  );

  const hold = useCallback(
    (held: boolean) => {
      clearTimeout(timer.current);
      if (!held) timer.current = setTimeout(dismiss, DELETE_UNDO_OFFER_MS);
    },
    [dismiss],
  );

  const undo = useCallback(async () => {
    if (deleted === null || pending) return;
    // Once asked, the answer decides: the offer does not vanish under the user meanwhile.
    clearTimeout(timer.current);
    setPending(true);
    setError(null);
    const result = await restoreLink(deleted);
    setPending(false);
    if (result.ok) {
      putLink(result.data);
      dismiss();
    } else if (result.signedOut) {
      dismiss();
      signOut();
    } else {
      setError(result.message);
      timer.current = setTimeout(dismiss, DELETE_UNDO_OFFER_MS);
    }
  }, [deleted, pending, putLink, signOut, dismiss]);

  useEffect(() => () => clearTimeout(timer.current), []);

  const value = useMemo(
    () => ({ deleted, offer, undo, dismiss, hold, pending, error }),
    [deleted, offer, undo, dismiss, hold, pending, error],
  );
  return <UndoDeleteContext.Provider value={value}>{children}</UndoDeleteContext.Provider>;
}

export function useUndoDelete(): UndoDelete {
  const context = useContext(UndoDeleteContext);
  if (!context) throw new Error('useUndoDelete must be used inside <UndoDeleteProvider>.');
  return context;
}

/** 'Link deleted' with Undo, and the error of a failed undo beside it. */
export function UndoDeleteNotice() {
  const { deleted, undo, dismiss, hold, pending, error } = useUndoDelete();
  return (
    <div className="undo-delete" role="status">
      {deleted !== null && (
        <div
          className="undo-delete__panel"
          onPointerEnter={() => hold(true)}
          onPointerLeave={() => hold(false)}
          onFocus={() => hold(true)}
          onBlur={(event) => {
            if (!event.currentTarget.contains(event.relatedTarget)) hold(false);
          }}
        >
          <p className="undo-delete__text">Link deleted.</p>
          <button
            type="button"
            className="button button--secondary undo-delete__undo"
            aria-busy={pending}
            disabled={pending}
            onClick={() => void undo()}
          >
            Undo
          </button>
          <button
            type="button"
            className="undo-delete__close"
            aria-label="Dismiss"
            onClick={dismiss}
          >
            ×
          </button>
          {error && (
            <p className="undo-delete__error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
