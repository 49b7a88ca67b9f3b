import type { Domain } from '@shortener/contracts/web-domains';
import { LINK_PASSWORD_MAX, MAX_VISITS_MAX } from '@shortener/contracts/web-link-rules';
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { listDomains } from '../../domains/api/domains';
import type { GeoRow, LinkOptions } from '../link-options';
import './link-options-fields.css';

/**
 * A link's domain and rules: the domain it lives on (one of the user's verified domains),
 * destinations for iPhone and Android visitors and by country, a password, a visit cap.
 * `hasPassword`: the link has one already (the edit form), which can be kept, replaced or
 * removed. A refusal of one of them (its message names the field) is shown under them.
 */
export function LinkOptionsFields({
  options,
  onChange,
  readOnly,
  refusal,
  hasPassword = false,
  host,
}: {
  options: LinkOptions;
  onChange: (options: LinkOptions) => void;
  readOnly: boolean;
  refusal: string | null;
  hasPassword?: boolean;
  /** This service's own host, the first choice of domain. */
  host: string;
}) {
  const ids = {
    domain: useId(),
    ios: useId(),
    android: useId(),
    password: useId(),
    passwordHint: useId(),
    maxVisits: useId(),
    maxVisitsHint: useId(),
    refusal: useId(),
  };
  const domains = useVerifiedDomains(options.domain);
  const nextKey = useRef(options.geo.reduce((most, row) => Math.max(most, row.key + 1), 0));
  const set = (change: Partial<LinkOptions>) => onChange({ ...options, ...change });
  const setRow = (key: number, change: Partial<GeoRow>) =>
    set({ geo: options.geo.map((row) => (row.key === key ? { ...row, ...change } : row)) });
  const text = (field: 'ios' | 'android' | 'maxVisits' | 'password') => ({
    value: options[field],
    readOnly,
    onChange: (event: { target: { value: string } }) => set({ [field]: event.target.value }),
  });
  const url = {
    type: 'url',
    inputMode: 'url' as const,
    autoComplete: 'off',
    autoCapitalize: 'none',
    spellCheck: false,
  };

  return (
    <div className="link-options">
      <div className="link-options__field">
        <label htmlFor={ids.domain}>Domain</label>
        <select
          id={ids.domain}
          className="link-options__input"
          value={options.domain}
          disabled={readOnly}
          onChange={(event) => set({ domain: event.target.value })}
        >
          <option value="">{host} (this service)</option>
          {domains.map((domain) => (
            <option key={domain} value={domain}>
              {domain}
            </option>
          ))}
        </select>
        {domains.length === 0 && (
          <p className="link-options__hint">
            Your own domain? Add and verify it in <Link to="/settings">Settings</Link>.
          </p>
        )}
      </div>

      <fieldset className="link-options__group">
        <legend>Targeting</legend>
        <div className="link-options__field">
          <label htmlFor={ids.ios}>iPhone and iPad visitors go to</label>
          <input
            id={ids.ios}
            className="link-options__input"
            placeholder="https://apps.apple.com/…"
            {...url}
            {...text('ios')}
          />
        </div>
        <div className="link-options__field">
          <label htmlFor={ids.android}>Android visitors go to</label>
          <input
            id={ids.android}
            className="link-options__input"
            placeholder="https://play.google.com/…"
            {...url}
            {...text('android')}
          />
        </div>
        <ul className="link-options__countries" aria-label="Destinations by country">
          {options.geo.map((row, index) => (
            <li key={row.key} className="link-options__country">
              <label className="link-options__code">
                <span>Country {index + 1}</span>
                <input
                  className="link-options__input"
                  placeholder="GB"
                  maxLength={2}
                  autoComplete="off"
                  autoCapitalize="characters"
                  spellCheck={false}
                  value={row.country}
                  readOnly={readOnly}
                  onChange={(event) => setRow(row.key, { country: event.target.value })}
                />
              </label>
              <label className="link-options__country-url">
                <span>Visitors from country {index + 1} go to</span>
                <input
                  className="link-options__input"
                  placeholder="https://example.co.uk"
                  {...url}
                  value={row.url}
                  readOnly={readOnly}
                  onChange={(event) => setRow(row.key, { url: event.target.value })}
                />
              </label>
              <button
                type="button"
                className="button button--secondary link-options__remove"
                aria-label={`Remove country ${index + 1}`}
                disabled={readOnly}
                onClick={() => set({ geo: options.geo.filter((each) => each.key !== row.key) })}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        <button
          type="button"
          className="button button--secondary link-options__add"
          disabled={readOnly}
          onClick={() => {
            const key = nextKey.current++;
            set({ geo: [...options.geo, { key, country: '', url: '' }] });
          }}
        >
          Add a country
        </button>
      </fieldset>

      <div className="link-options__field">
        <label htmlFor={ids.password}>{hasPassword ? 'New password' : 'Password'}</label>
        <input
          id={ids.password}
          className="link-options__input"
          type="password"
          autoComplete="new-password"
          maxLength={LINK_PASSWORD_MAX}
          aria-describedby={ids.passwordHint}
          disabled={options.removePassword}
          {...text('password')}
        />
        <p id={ids.passwordHint} className="link-options__hint">
          {hasPassword
            ? 'The link asks for a password. Leave empty to keep it.'
            : 'Visitors must enter it before they are sent on. Leave empty for none.'}
        </p>
        {hasPassword && (
          <label className="link-options__check">
            <input
              type="checkbox"
              checked={options.removePassword}
              disabled={readOnly}
              onChange={(event) => set({ removePassword: event.target.checked, password: '' })}
            />
            Remove the password
          </label>
        )}
      </div>

      <div className="link-options__field">
        <label htmlFor={ids.maxVisits}>Visit cap</label>
        <input
          id={ids.maxVisits}
          className="link-options__input link-options__input--short"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_VISITS_MAX}
          step={1}
          aria-describedby={ids.maxVisitsHint}
          {...text('maxVisits')}
        />
        <p id={ids.maxVisitsHint} className="link-options__hint">
          After this many visits the link stops working. Leave empty for no cap.
        </p>
      </div>

      {refusal !== null && (
        <p id={ids.refusal} className="link-options__refusal" role="alert">
          {refusal}
        </p>
      )}
    </div>
  );
}

/** The user's verified domains' hosts; the chosen one kept among them while they load. */
function useVerifiedDomains(chosen: string): string[] {
  const [domains, setDomains] = useState<Domain[] | null>(null);
  useEffect(() => {
    let current = true;
    void listDomains().then((result) => {
      if (current && result.ok) setDomains(result.data);
    });
    return () => {
      current = false;
    };
  }, []);
  const hosts = (domains ?? []).filter((domain) => domain.verified).map(({ host }) => host);
  return chosen === '' || hosts.includes(chosen) ? hosts : [chosen, ...hosts];
}
