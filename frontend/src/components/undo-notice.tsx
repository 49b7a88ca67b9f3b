import type { UndoOffer } from '../lib/use-undo-offer';
import './undo-notice.css';

/** '{what} deleted.' with Undo while it is offered, and the error of a failed undo beside it. */
export function UndoNotice<Item>({ offer, text }: { offer: UndoOffer<Item>; text: string }) {
  const { offered, undo, dismiss, hold, pending, error } = offer;
  return (
    <div className="undo-notice" role="status">
      {offered !== null && (
        <div
          className="undo-notice__panel"
          onPointerEnter={() => hold(true)}
          onPointerLeave={() => hold(false)}
          onFocus={() => hold(true)}
          onBlur={(event) => {
            if (!event.currentTarget.contains(event.relatedTarget)) hold(false);
          }}
        >
          <p className="undo-notice__text">{text}</p>
          <button
            type="button"
            className="button button--secondary undo-notice__undo"
            aria-busy={pending}
            disabled={pending}
            onClick={() => void undo()}
          >
            Undo
          </button>
          <button
            type="button"
            className="undo-notice__close"
            aria-label="Dismiss"
            onClick={dismiss}
          >
            ×
          </button>
          {error && (
            <p className="undo-notice__error" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
