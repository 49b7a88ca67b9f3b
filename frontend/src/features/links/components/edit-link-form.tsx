import {
  EXPIRY_DAYS,
  MESSAGES,
  type EditLinkBody,
  type ExpiryDays,
  type ShortLink,
} from '@shortener/contracts/web';
import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { useHost } from '../../../lib/hydration';
import { toAbsoluteUrl } from '../../../lib/url';
import { useSession } from '../../auth';
import { editLink } from '../api/edit-link';
import { editInput, isOptionsRefusal, optionsOf, type LinkOptions } from '../link-options';
import { LinkOptionsFields } from './link-options-fields';
// The expiry choices look like the home page's.
import './shorten-form.css';
import './edit-link-form.css';

/**
 * Edit: a new destination, a new expiry counted from today, its domain and rules (targeting,
 * password, visit cap); the code, its visits and its stats stay. A refusal is shown beside Save. `onDone` closes the form, told
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
  const [options, setOptions] = useState<LinkOptions>(() => optionsOf(link));
  const host = useHost();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const optionsRefused = isOptionsRefusal(error);
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
      ...editInput(options, link),
    };
    if (Object.keys(change).length === 0) {
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
        aria-invalid={error !== '' && !optionsRefused}
        aria-describedby={error && !optionsRefused ? errorId : undefined}
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

      <section className="edit-link__options" aria-label="Domain and rules">
        <h2 className="edit-link__label">Domain and rules</h2>
        <LinkOptionsFields
          options={options}
          onChange={(next) => {
            setOptions(next);
            setError('');
          }}
          readOnly={busy}
          refusal={optionsRefused ? error : null}
          hasPassword={link.hasPassword === true}
          host={host}
        />
      </section>

      <div className="edit-link__actions">
        {error && !optionsRefused && (
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
