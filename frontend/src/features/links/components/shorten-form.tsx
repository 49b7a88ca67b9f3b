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
  useEffect,
  useId,
  useRef,
  useState,
  type ChangeEvent,
  type CSSProperties,
  type SyntheticEvent,
} from 'react';
import { Link } from 'react-router-dom';
import { ArrowRightIcon, CheckIcon, CopyIcon } from '../../../components/icons';
import { Unreachable } from '../../../components/unreachable';
import { copyText } from '../../../lib/clipboard';
import { useHost } from '../../../lib/hydration';
import { shortLinkFor, toAbsoluteUrl } from '../../../lib/url';
import { useSession } from '../../auth';
import { shortenUrl } from '../api/shorten-url';
import { createInput, isOptionsRefusal, NO_OPTIONS, type LinkOptions } from '../link-options';
import { LinkOptionsPanel } from './link-options-panel';
import { UtmBuilder } from './utm-builder';
import './shorten-form.css';

/** The link just made: its short link, its code (for its page) and where it leads. */
interface Result {
  shortLink: string;
  code: string;
  destination: string;
}

/**
 * A refusal that is about the form as a whole, not one field: a rate limit (with the seconds
 * it asks to wait, counted down) or no answer at all.
 */
type Notice =
  | { kind: 'rate-limit'; message: string; until: number }
  | { kind: 'rate-limit-over' }
  | { kind: 'unreachable' };

/**
 * Home (SPEC sections 2 and 4): idle → 'Loading..' → the input shows the short link and the
 * button reads 'Copy' → 'Copied'. Editing the input, the alias or the expiry goes back to idle.
 */
export function ShortenForm() {
  const { signedIn, forgetUser, signOut } = useSession();
  const [input, setInput] = useState('');
  const [alias, setAlias] = useState('');
  const [result, setResult] = useState<Result | null>(null);
  const shortLink = result?.shortLink ?? null;
  const [error, setError] = useState('');
  const [notice, setNotice] = useState<Notice | null>(null);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [chosenDays, setChosenDays] = useState<ExpiryDays>(DEFAULT_EXPIRY_DAYS);
  const [options, setOptions] = useState<LinkOptions>(NO_OPTIONS);
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
  // A refusal of the domain or a rule is shown with them; the URL's with the URL.
  const optionsRefused = isOptionsRefusal(error);
  const urlRefused = error !== '' && !aliasRefused && !optionsRefused;
  const domain = signedIn ? options.domain : '';
  const prefix = domain === '' ? `${host}/r/` : `${domain}/`;

  /** Back to idle: the result, the errors and the copied state go. */
  function reset() {
    setResult(null);
    setError('');
    setNotice(null);
    setCopied(false);
  }

  function onChange(event: ChangeEvent<HTMLInputElement>) {
    setInput(event.target.value);
    reset();
  }

  /** A new alias or expiry is a new link to make: the result and its error go, as for the URL. */
  function onAliasChange(event: ChangeEvent<HTMLInputElement>) {
    setAlias(event.target.value.trim());
    reset();
  }

  function onSubmit(event: SyntheticEvent<HTMLFormElement>) {
    event.preventDefault();
    void submit();
  }

  async function submit() {
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
    setNotice(null);
    const extra = signedIn ? createInput(options) : {};
    // Shorten's query takes no domain nor rule: a link with them is made by POST /api/links.
    const answer =
      Object.keys(extra).length === 0
        ? await shortenUrl(url, days, signedIn ? alias : '')
        : await (await import('../api/create-link')).createLink(url, days, alias, extra);
    inFlight.current = false;
    setBusy(false);

    if (answer.ok) {
      setInput(url);
      if ('shortLink' in answer.data) {
        setResult({ ...answer.data, destination: url });
      } else {
        const code = answer.data.url;
        setResult({ shortLink: shortLinkFor(code), code, destination: url });
        if (signedIn && !answer.data.loggedIn) signOut();
      }
      forgetUser();
      return;
    }
    if (answer.signedOut) signOut();
    if (answer.unreachable) setNotice({ kind: 'unreachable' });
    else if (answer.status === 403 && answer.retryAfter !== undefined) {
      setNotice({
        kind: 'rate-limit',
        message: answer.message,
        until: Date.now() + answer.retryAfter * 1000,
      });
    } else setError(answer.message);
  }

  const label = busy ? 'Loading..' : shortLink ? (copied ? 'Copied' : 'Copy') : 'Shorten';
  const icon = busy ? null : shortLink ? copied ? <CheckIcon /> : <CopyIcon /> : <ArrowRightIcon />;

  return (
    <section className="shorten card" aria-labelledby="shorten-heading">
      <h1 id="shorten-heading" className="shorten__title">
        Shorten your URL
      </h1>
      <p className="shorten__lead">
        Paste a long link, get a short one to share.{' '}
        {signedIn
          ? 'See who visits it on its page, under Tracking.'
          : 'Sign in to see who visits it.'}
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
          aria-invalid={urlRefused}
          aria-describedby={urlRefused ? errorId : undefined}
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
        {/* The URL's own error, in the form, so a phone (one column) shows it between the
            field and the button, in sight of both; wider, on a line of its own under them. */}
        {urlRefused && (
          <p id={errorId} className="shorten__error" role="alert">
            {error}
          </p>
        )}
      </form>

      {/* Beside the URL it writes into; editing it is editing the URL (back to idle). */}
      <UtmBuilder
        url={input}
        readOnly={busy}
        onChange={(url) => {
          setInput(url);
          reset();
        }}
      />

      {notice?.kind === 'rate-limit' && (
        <RateLimited
          message={notice.message}
          until={notice.until}
          onOver={() => {
            setNotice({ kind: 'rate-limit-over' });
          }}
        />
      )}
      {notice?.kind === 'unreachable' && <Unreachable auto={false} onRetry={() => void submit()} />}
      {notice?.kind === 'rate-limit-over' && (
        <p className="shorten__notice" role="status">
          You can shorten again.
        </p>
      )}

      {result && (
        <section className="shorten__result" aria-label="Your short link">
          <p className="shorten__destination">
            <span className="shorten__result-label">Leads to</span>{' '}
            <span className="shorten__destination-url">{result.destination}</span>
          </p>
          {signedIn && (
            <Link className="shorten__page-link" to={`/profile/${encodeURIComponent(result.code)}`}>
              Its stats and visitors
            </Link>
          )}
        </section>
      )}

      {signedIn && (
        <div className="alias">
          <label htmlFor={aliasId} className="alias__label">
            Alias <span className="alias__optional">(optional)</span>
          </label>
          <div
            className="alias__field"
            style={{ '--alias-prefix-ch': `${prefix.length}` } as CSSProperties}
          >
            <span className="alias__prefix" aria-hidden="true">
              <span className="alias__host">{prefix.slice(0, prefix.indexOf('/'))}</span>
              {prefix.slice(prefix.indexOf('/'))}
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
          {/* Under the field it is about, at every width. */}
          {aliasRefused && (
            <p id={errorId} className="shorten__error alias__error" role="alert">
              {error}
            </p>
          )}
          <p id={aliasHintId} className="alias__hint">
            4 to {ALIAS_MAX_LENGTH} letters, digits, - or _. Leave empty for a random code.
          </p>
        </div>
      )}

      {signedIn && (
        <LinkOptionsPanel
          options={options}
          onChange={(next) => {
            setOptions(next);
            reset();
          }}
          readOnly={busy}
          refusal={optionsRefused ? error : null}
          host={host}
        />
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
                  if (option === days) return;
                  setChosenDays(option);
                  reset();
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

/**
 * The rate limit's refusal (SPEC: a shorten 403 shows the server's message) as a message about
 * the form, with the wait it asks for counted down to the second; `onOver` when it is over.
 */
function RateLimited({
  message,
  until,
  onOver,
}: {
  message: string;
  until: number;
  onOver: () => void;
}) {
  const [now, setNow] = useState(Date.now);
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  useEffect(() => {
    if (left === 0) {
      onOver();
      return;
    }
    // At the next whole second of the wait, when the number shown changes.
    const timer = window.setTimeout(() => setNow(Date.now()), (until - Date.now()) % 1000 || 1000);
    return () => window.clearTimeout(timer);
  }, [left, now, until, onOver]);
  return (
    <div className="shorten__notice shorten__notice--wait" role="alert">
      <p>{message}</p>
      {/* Not read out every second: a screen reader can ask the timer when it likes. */}
      <p role="timer" aria-live="off" className="shorten__countdown tabular">
        You can try again in {left} s.
      </p>
    </div>
  );
}
