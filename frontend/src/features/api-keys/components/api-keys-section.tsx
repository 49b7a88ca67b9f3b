import {
  API_DOCS_PATH,
  API_KEY_MESSAGES,
  API_KEY_NAME_MAX,
  API_KEY_SCOPE_DESCRIPTIONS,
  API_KEY_SCOPES,
  type ApiKey,
  type ApiKeyScope,
  type CreatedApiKey,
} from '@shortener/contracts/web-api-keys';
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { IconButton } from '../../../components/icon-button';
import { CheckIcon, CopyIcon, TrashIcon } from '../../../components/icons';
import { copyText } from '../../../lib/clipboard';
import { formatDateTime } from '../../../lib/format';
import { useSession } from '../../auth';
import { createApiKey, listApiKeys, revokeApiKey } from '../api/api-keys';
import './api-keys-section.css';

/**
 * The settings page's API keys: make one (a name, its scopes), see it whole once and copy it,
 * list the others with their dates, revoke one.
 */
export function ApiKeysSection() {
  return (
    <section className="api-keys card" aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading" className="api-keys__title">
        API keys
      </h2>
      <p className="api-keys__intro">
        Let a script shorten links or read stats for you: it sends{' '}
        <code>Authorization: Bearer &lt;key&gt;</code> (see the{' '}
        <a href={`${API_DOCS_PATH}/`}>API description</a>). A key can never manage keys or your
        account.
      </p>
      <div className="api-keys__content">
        <ApiKeysManager />
      </div>
    </section>
  );
}

function ApiKeysManager() {
  const { signOut } = useSession();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);

  const load = useCallback(async () => {
    const result = await listApiKeys();
    if (result.ok) setKeys(result.data);
    else if (result.signedOut) signOut();
    else setError(result.message);
  }, [signOut]);

  useEffect(() => {
    void load();
  }, [load]);

  async function revoke(key: ApiKey) {
    setRevoking(key.id);
    setError(null);
    const result = await revokeApiKey(key.id);
    setRevoking(null);
    if (result.ok) {
      setKeys((current) => current?.filter((kept) => kept.id !== key.id) ?? null);
      if (created?.id === key.id) setCreated(null);
    } else if (result.signedOut) signOut();
    else setError(result.message);
  }

  return (
    <>
      <NewKeyForm
        onCreated={(key) => {
          setCreated(key);
          setError(null);
          setKeys((current) => [key, ...(current ?? [])]);
        }}
        onSignedOut={signOut}
      />

      {created && <CreatedKey created={created} onDone={() => setCreated(null)} />}
      {error && <ErrorMessage>{error}</ErrorMessage>}

      {keys === null ? (
        !error && <Loading />
      ) : keys.length === 0 ? (
        <p className="api-keys__empty">No API keys yet.</p>
      ) : (
        <ul className="api-keys__list" aria-label="Your API keys">
          {keys.map((key) => (
            <KeyItem
              key={key.id}
              apiKey={key}
              revoking={revoking === key.id}
              onRevoke={() => void revoke(key)}
            />
          ))}
        </ul>
      )}
    </>
  );
}

function NewKeyForm({
  onCreated,
  onSignedOut,
}: {
  onCreated: (key: CreatedApiKey) => void;
  onSignedOut: () => void;
}) {
  const nameId = useId();
  const whyId = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['links:write']);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    const result = await createApiKey(name.trim(), scopes);
    setBusy(false);
    if (result.ok) {
      setName('');
      onCreated(result.data);
    } else if (result.signedOut) onSignedOut();
    else setError(result.message);
  }

  function toggle(scope: ApiKeyScope, on: boolean) {
    setScopes((current) =>
      on
        ? API_KEY_SCOPES.filter((each) => each === scope || current.includes(each))
        : current.filter((each) => each !== scope),
    );
  }

  const why =
    name.trim() === ''
      ? API_KEY_MESSAGES.nameRequired
      : scopes.length === 0
        ? API_KEY_MESSAGES.scopesRequired
        : null;

  return (
    <form className="api-keys__form" onSubmit={(event) => void submit(event)}>
      <div className="api-keys__field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          className="api-keys__input"
          value={name}
          maxLength={API_KEY_NAME_MAX}
          placeholder="e.g. deploy script"
          required
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <fieldset className="api-keys__scopes">
        <legend>Scopes</legend>
        {API_KEY_SCOPES.map((scope) => (
          <label key={scope} className="api-keys__scope">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(event) => toggle(scope, event.target.checked)}
            />
            <span>
              <code>{scope}</code> {API_KEY_SCOPE_DESCRIPTIONS[scope]}
            </span>
          </label>
        ))}
      </fieldset>
      <button
        type="submit"
        className="button button--primary"
        disabled={busy || why !== null}
        aria-describedby={why === null ? undefined : whyId}
      >
        {busy ? 'Loading..' : 'Create key'}
      </button>
      {/* A disabled button cannot be asked why: the reason stands beside it. */}
      {why !== null && (
        <p id={whyId} className="api-keys__why">
          {why}
        </p>
      )}
      {error && <ErrorMessage>{error}</ErrorMessage>}
    </form>
  );
}

/** The new key, whole: the only time it can be seen. */
function CreatedKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const keyId = useId();
  return (
    <div className="api-keys__created" role="status">
      <p className="api-keys__created-title">
        Your new key “{created.name}”. Copy it now: it will not be shown again.
      </p>
      <div className="api-keys__secret">
        <code id={keyId} className="api-keys__secret-text">
          {created.key}
        </code>
        <IconButton
          label="Copy API key"
          text={copied ? 'Copied' : 'Copy'}
          icon={copied ? <CheckIcon /> : <CopyIcon />}
          aria-describedby={keyId}
          onClick={() => void copyText(created.key).then(setCopied)}
        />
      </div>
      <button type="button" className="button button--secondary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function KeyItem({
  apiKey,
  revoking,
  onRevoke,
}: {
  apiKey: ApiKey;
  revoking: boolean;
  onRevoke: () => void;
}) {
  const nameId = useId();
  const [asking, setAsking] = useState(false);
  const item = useRef<HTMLLIElement>(null);
  const answered = useRef(false);
  useEffect(() => {
    // Into the question when it is asked; back to Revoke when it is answered with Cancel.
    if (asking) item.current?.querySelector<HTMLButtonElement>('.button--danger')?.focus();
    else if (answered.current) item.current?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [asking]);
  function keep() {
    answered.current = true;
    setAsking(false);
  }
  return (
    <li className="api-key" ref={item}>
      <div className="api-key__body">
        <p className="api-key__name" id={nameId}>
          {apiKey.name}
        </p>
        <p className="api-key__label">
          <code>{apiKey.label}…</code>
        </p>
        <p className="api-key__scopes">
          {apiKey.scopes.map((scope) => (
            <code key={scope} className="api-key__scope">
              {scope}
            </code>
          ))}
        </p>
        <dl className="api-key__dates">
          <div>
            <dt>Created</dt>
            <dd className="tabular">{formatDateTime(apiKey.createdAt)}</dd>
          </div>
          <div>
            <dt>Last used</dt>
            <dd className="tabular">
              {apiKey.lastUsedAt === undefined ? 'Never' : formatDateTime(apiKey.lastUsedAt)}
            </dd>
          </div>
        </dl>
      </div>
      {asking ? (
        // Revoking cannot be undone (scripts using the key fail at once): the row asks first.
        <div
          className="api-key__confirm"
          role="group"
          aria-label={`Revoke ${apiKey.name}`}
          onKeyDown={(event) => {
            if (event.key === 'Escape') keep();
          }}
        >
          <p className="api-key__confirm-text">
            Revoke “{apiKey.name}”? Scripts that use it stop working at once.
          </p>
          <div className="api-key__confirm-actions">
            <button
              type="button"
              className="button button--danger"
              aria-busy={revoking}
              disabled={revoking}
              onClick={onRevoke}
            >
              {revoking ? 'Loading..' : 'Revoke key'}
            </button>
            <button type="button" className="button button--secondary" onClick={keep}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <IconButton
          label="Revoke"
          tone="danger"
          icon={<TrashIcon />}
          aria-describedby={nameId}
          onClick={() => setAsking(true)}
        />
      )}
    </li>
  );
}
