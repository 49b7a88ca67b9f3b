import {
  ALIAS_MAX_LENGTH,
  ALIAS_MESSAGES,
  ANONYMOUS_MAX_EXPIRY_DAYS,
  DEFAULT_EXPIRY_DAYS,
  EXPIRY_DAYS,
  MESSAGES,
  type ExpiryDays,
} from '@shortener/contracts/web';
import {
  useId,
  useRef,
  useState,
  type ChangeEvent,
  type CSSProperties,
  type SyntheticEvent,
} from 'react';
import { ArrowRightIcon, CheckIcon, CopyIcon } from '../../../components/icons';
import { copyText } from '../../../lib/clipboard';
import { useHost } from '../../../lib/hydration';
import { shortLinkFor, toAbsoluteUrl } from '../../../lib/url';
import { useSession } from '../../auth';
import { shortenUrl } from '../api/shorten-url';
import './shorten-form.css';

/**
 * Home (SPEC sections 2 and 4): idle → 'Loading..' → the input shows the short link and the
 * button reads 'Copy' → 'Copied'. Editing the input goes back to idle.
 */
export function ShortenForm() {
  const { signedIn, forgetUser, signOut } = useSession();
  const [input, setInput] = useState('');
  const [alias, setAlias] = useState('');
  const [shortLink, setShortLink] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [chosenDays, setChosenDays] = useState<ExpiryDays>(DEFAULT_EXPIRY_DAYS);
  // State updates are not synchronous: a second click in the same instant still sees busy=false.
  const inFlight = useRef(false);
  const inputId = useId();
  const errorId = useId();
  const hintId = useId();
  const aliasId = useId();
  const aliasHintId = useId();
  const host = useHost();

  const days = signedIn ? chosenDays : DEFAULT_EXPIRY_DAYS;
  // A refusal of the alias marks the alias field, not the URL.
  const aliasRefused = (Object.values(ALIAS_MESSAGES) as string[]).includes(error);

  function onChange(event: ChangeEvent<HTMLInputElement>) {
    setInput(event.target.value);
    setShortLink(null);
    setError('');
    setCopied(false);
  }

  /** A new alias is a new link to make: the result and its error go, as for the URL. */
  function onAliasChange(event: ChangeEvent<HTMLInputElement>) {
    setAlias(event.target.value.trim());
    setShortLink(null);
    setError('');
    setCopied(false);
  }

  async function onSubmit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault();
    if (inFlight.current) return;
    if (shortLink) {
      if (await copyText(shortLink)) setCopied(true);
      return;
    }

    const url = toAbsoluteUrl(input);
    if (!url) {
      setError(MESSAGES.invalidUrl);
      return;
    }
    inFlight.current = true;
    setBusy(true);
    setError('');
    const result = await shortenUrl(url, days, signedIn ? alias : '');
    inFlight.current = false;
    setBusy(false);

    if (result.ok) {
      setInput(url);
      setShortLink(shortLinkFor(result.data.url));
      forgetUser();
      if (signedIn && !result.data.loggedIn) signOut();
      return;
    }
    if (result.signedOut) signOut();
    setError(result.message);
  }

  const label = busy ? 'Loading..' : shortLink ? (copied ? 'Copied' : 'Copy') : 'Shorten';
  const icon = busy ? null : shortLink ? copied ? <CheckIcon /> : <CopyIcon /> : <ArrowRightIcon />;

  return (
    <section className="shorten card" aria-labelledby="shorten-heading">
      <h1 id="shorten-heading" className="shorten__title">
        Shorten your URL
      </h1>
      <p className="shorten__lead">
        Paste a long link, get a short one to share. Sign in to see who visits it.
      </p>

      <form className="shorten__form" onSubmit={(event) => void onSubmit(event)} noValidate>
        <label htmlFor={inputId} className="visually-hidden">
          URL to shorten
        </label>
        <input
          id={inputId}
          className={`shorten__input${shortLink ? ' shorten__input--result' : ''}`}
          type="url"
          inputMode="url"
          autoComplete="off"
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          placeholder={host || undefined}
          value={shortLink ?? input}
          onChange={onChange}
          readOnly={busy}
          aria-invalid={error !== '' && !aliasRefused}
          aria-describedby={error && !aliasRefused ? errorId : undefined}
        />
        <button
          type="submit"
          className={`button button--primary shorten__submit${copied ? ' is-done' : ''}`}
          aria-disabled={busy}
          aria-busy={busy}
        >
          <span aria-live="polite">{label}</span>
          {icon}
        </button>
        {/* In the form, so a phone (one column) shows it between the field and the button,
            in sight of both; wider, on a line of its own under them. */}
        {error && (
          <p id={errorId} className="shorten__error" role="alert">
            {error}
          </p>
        )}
      </form>

      {signedIn && (
        <div className="alias">
          <label htmlFor={aliasId} className="alias__label">
            Alias <span className="alias__optional">(optional)</span>
          </label>
          <div
            className="alias__field"
            style={{ '--alias-prefix-ch': `${host.length + 3}` } as CSSProperties}
          >
            <span className="alias__prefix" aria-hidden="true">
              <span className="alias__host">{host}</span>/r/
            </span>
            <input
              id={aliasId}
              className="alias__input"
              type="text"
              autoComplete="off"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              maxLength={ALIAS_MAX_LENGTH}
              placeholder="my-link"
              value={alias}
              onChange={onAliasChange}
              readOnly={busy}
              aria-invalid={aliasRefused}
              aria-describedby={aliasRefused ? `${errorId} ${aliasHintId}` : aliasHintId}
            />
          </div>
          <p id={aliasHintId} className="alias__hint">
            4 to {ALIAS_MAX_LENGTH} letters, digits, - or _. Leave empty for a random code.
          </p>
        </div>
      )}

      <fieldset className="expiry">
        <legend className="expiry__legend">Expires after</legend>
        <div className="expiry__options">
          {EXPIRY_DAYS.map((option) => {
            const locked = !signedIn && option > ANONYMOUS_MAX_EXPIRY_DAYS;
            return (
              <button
                key={option}
                type="button"
                className="expiry__option"
                aria-pressed={days === option}
                disabled={locked}
                aria-describedby={locked ? hintId : undefined}
                onClick={() => {
                  setChosenDays(option);
                }}
              >
                {option} days
              </button>
            );
          })}
        </div>
        {!signedIn && (
          <p id={hintId} className="expiry__hint">
            {MESSAGES.loginForExpiry}
          </p>
        )}
      </fieldset>
    </section>
  );
}
