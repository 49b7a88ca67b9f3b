import { DELETE_UNDO_OFFER_MS } from '@shortener/contracts/web';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ApiResult } from './api';

/** Undo offered for something just deleted, as components/undo-notice.tsx shows it. */
export interface UndoOffer<Item> {
  /** What was just deleted, while its Undo is offered. */
  offered: Item | null;
  /** Offers Undo for `item`, for DELETE_UNDO_OFFER_MS (the server keeps it longer). */
  offer: (item: Item) => void;
  undo: () => Promise<void>;
  dismiss: () => void;
  /** While the pointer or the focus is on the offer it stays (WCAG 2.2.1); it ends in full time after. */
  hold: (held: boolean) => void;
  pending: boolean;
  error: string | null;
}

/**
 * The offer's life: it ends by itself after DELETE_UNDO_OFFER_MS, an undo calls `restore`
 * and hands its answer to `restored`; a failed undo shows its message and offers again.
 */
export function useUndoOffer<Item, Restored>(
  restore: (item: Item) => Promise<ApiResult<Restored>>,
  restored: (data: Restored) => void,
  signOut: () => void,
): UndoOffer<Item> {
  const [offered, setOffered] = useState<Item | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const dismiss = useCallback(() => {
    clearTimeout(timer.current);
    setOffered(null);
    setError(null);
  }, []);

  const offer = useCallback(
    (item: Item) => {
      clearTimeout(timer.current);
      setOffered(item);
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
    if (offered === null || pending) return;
    // Once asked, the answer decides: the offer does not vanish under the user meanwhile.
    clearTimeout(timer.current);
    setPending(true);
    setError(null);
    const result = await restore(offered);
    setPending(false);
    if (result.ok) {
      restored(result.data);
      dismiss();
    } else if (result.signedOut) {
      dismiss();
      signOut();
    } else {
      setError(result.message);
      timer.current = setTimeout(dismiss, DELETE_UNDO_OFFER_MS);
    }
  }, [offered, pending, restore, restored, signOut, dismiss]);

  useEffect(() => () => clearTimeout(timer.current), []);

  return useMemo(
    () => ({ offered, offer, undo, dismiss, hold, pending, error }),
    [offered, offer, undo, dismiss, hold, pending, error],
  );
}
