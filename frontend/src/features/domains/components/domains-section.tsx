import { DOMAIN_HOST_MAX, type Domain } from '@shortener/contracts/web-domains';
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { UndoNotice } from '../../../components/undo-notice';
import { useUndoOffer } from '../../../lib/use-undo-offer';
import { useSession } from '../../auth';
import { addDomain, deleteDomain, listDomains, restoreDomain } from '../api/domains';
import { DomainItem } from './domain-item';
import './domains-section.css';

/**
 * The settings page's domains: add a host of one's own, create the TXT record shown, verify
 * it, remove a domain (with Undo, as a link's delete has).
 */
export function DomainsSection() {
  return (
    <section className="domains card" aria-labelledby="domains-heading">
      <h2 id="domains-heading" className="domains__title">
        Domains
      </h2>
      <p className="domains__intro">
        Put your short links on a domain of your own, such as <code>go.example.com</code>: add it,
        create the TXT record shown at your DNS provider, then verify it.
      </p>
      <div className="domains__content">
        <DomainsManager />
      </div>
    </section>
  );
}

function DomainsManager() {
  const { signOut } = useSession();
  const [domains, setDomains] = useState<Domain[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);

  const load = useCallback(async () => {
    const result = await listDomains();
    if (result.ok) setDomains(result.data);
    else if (result.signedOut) signOut();
    else setError(result.message);
  }, [signOut]);

  useEffect(() => {
    void load();
  }, [load]);

  // Restored, the domain is back as it was; the list is read again for its place in it.
  const restored = useCallback(() => void load(), [load]);
  const undo = useUndoOffer(restoreDomain, restored, signOut);

  /** One domain replaced by its newer self (verified, say), or put first when new. */
  const put = useCallback((domain: Domain) => {
    setDomains((current) => {
      const others = (current ?? []).filter((each) => each.host !== domain.host);
      const index = (current ?? []).findIndex((each) => each.host === domain.host);
      return index === -1
        ? [domain, ...others]
        : [...others.slice(0, index), domain, ...others.slice(index)];
    });
  }, []);

  async function remove(domain: Domain) {
    setRemoving(domain.host);
    setError(null);
    const result = await deleteDomain(domain.host);
    setRemoving(null);
    if (result.ok) {
      setDomains((current) => current?.filter((each) => each.host !== domain.host) ?? null);
      undo.offer(domain.host);
    } else if (result.signedOut) signOut();
    else setError(result.message);
  }

  return (
    <>
      <AddDomainForm onAdded={put} onSignedOut={signOut} />
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {domains === null ? (
        !error && <Loading />
      ) : domains.length === 0 ? (
        <p className="domains__empty">No domains yet.</p>
      ) : (
        <ul className="domains__list" aria-label="Your domains">
          {domains.map((domain) => (
            <DomainItem
              key={domain.host}
              domain={domain}
              removing={removing === domain.host}
              onVerified={put}
              onRemove={() => void remove(domain)}
              onSignedOut={signOut}
            />
          ))}
        </ul>
      )}
      <UndoNotice offer={undo} text="Domain removed." />
    </>
  );
}

function AddDomainForm({
  onAdded,
  onSignedOut,
}: {
  onAdded: (domain: Domain) => void;
  onSignedOut: () => void;
}) {
  const hostId = useId();
  const errorId = useId();
  const [host, setHost] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    // The server checks the name and says what is wrong with it.
    const result = await addDomain(host.trim());
    setBusy(false);
    if (result.ok) {
      setHost('');
      onAdded(result.data);
    } else if (result.signedOut) onSignedOut();
    else setError(result.message);
  }

  return (
    <form className="domains__form" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor={hostId} className="domains__label">
        Domain
      </label>
      <div className="domains__add">
        <input
          id={hostId}
          className="domains__input"
          type="text"
          inputMode="url"
          autoComplete="off"
          autoCapitalize="none"
          autoCorrect="off"
          spellCheck={false}
          maxLength={DOMAIN_HOST_MAX}
          placeholder="go.example.com"
          value={host}
          readOnly={busy}
          aria-invalid={error !== null}
          aria-describedby={error === null ? undefined : errorId}
          onChange={(event) => {
            setHost(event.target.value);
            setError(null);
          }}
        />
        <button type="submit" className="button button--primary" aria-busy={busy}>
          {busy ? 'Loading..' : 'Add domain'}
        </button>
      </div>
      {error !== null && (
        <p id={errorId} className="domains__error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
