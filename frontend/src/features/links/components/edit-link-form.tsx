import {
  EXPIRY_DAYS,
  MESSAGES,
  type EditLinkBody,
  type ExpiryDays,
  type ShortLink,
} from '@shortener/contracts/web';
import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { toAbsoluteUrl } from '../../../lib/url';
import { useSession } from '../../auth';
import { editLink } from '../api/edit-link';
// The expiry choices look like the home page's.
import './shorten-form.css';
import './edit-link-form.css';

/**
 * Edit: a new destination, a new expiry counted from today, or both; the code, its
 * visits and its stats stay. A refusal is shown beside Save. `onDone` closes the form, told
 * whether a change was saved; Escape closes it as Cancel does.
 */
export function EditLinkForm({
  link,
  onDone,
}: {
  link: ShortLink;
  onDone: (saved: boolean) => void;
}) {
  const { putLink, signOut } = useSession();
  const [url, setUrl] = useState(link.originalUrl);
  const [days, setDays] = useState<ExpiryDays | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const urlId = useId();
  const errorId = useId();

  async function onSubmit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault();
    if (inFlight.current) return;
    const absolute = toAbsoluteUrl(url);
    if (!absolute) {
      setError(MESSAGES.invalidUrl);
      return;
    }
    const change: EditLinkBody = {
      ...(absolute === link.originalUrl ? {} : { url: absolute }),
      ...(days === null ? {} : { days }),
    };
    if (change.url === undefined && change.days === undefined) {
      onDone(false);
      return;
    }
    inFlight.current = true;
    setBusy(true);
    setError('');
    const result = await editLink(link.urlID, change);
    inFlight.current = false;
    setBusy(false);
    if (result.ok) {
      putLink(result.data);
      onDone(true);
      return;
    }
    if (result.signedOut) signOut();
    else setError(result.message);
  }

  return (
    <form
      className="edit-link"
      aria-label="Edit link"
      onSubmit={(event) => void onSubmit(event)}
      onKeyDown={(event) => {
        // A save on its way is let finish: its answer is what the page then shows.
        if (event.key === 'Escape' && !busy) {
          event.preventDefault();
          onDone(false);
        }
      }}
      noValidate
    >
      <label htmlFor={urlId} className="edit-link__label">
        Destination
      </label>
      <input
        id={urlId}
        className="edit-link__input"
        type="url"
        inputMode="url"
        autoComplete="off"
        autoCapitalize="none"
        autoCorrect="off"
        spellCheck={false}
        value={url}
        onChange={(event) => {
          setUrl(event.target.value);
          setError('');
        }}
        readOnly={busy}
        aria-invalid={error !== ''}
        aria-describedby={error ? errorId : undefined}
      />

      <fieldset className="expiry edit-link__expiry">
        <legend className="expiry__legend">Expires</legend>
        <div className="edit-link__options">
          <button
            type="button"
            className="expiry__option"
            aria-pressed={days === null}
            onClick={() => setDays(null)}
          >
            Unchanged
          </button>
          {EXPIRY_DAYS.map((option) => (
            <button
              key={option}
              type="button"
              className="expiry__option"
              aria-pressed={days === option}
              onClick={() => setDays(option)}
            >
              {option} days from now
            </button>
          ))}
        </div>
      </fieldset>

      <div className="edit-link__actions">
        {error && (
          <p id={errorId} className="edit-link__error" role="alert">
            {error}
          </p>
        )}
        <button type="button" className="button button--secondary" onClick={() => onDone(false)}>
          Cancel
        </button>
        <button
          type="submit"
          className="button button--primary"
          aria-disabled={busy}
          aria-busy={busy}
        >
          {busy ? 'Saving..' : 'Save'}
        </button>
      </div>
    </form>
  );
}
