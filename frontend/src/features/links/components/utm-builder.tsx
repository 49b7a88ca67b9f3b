import { useId, useState } from 'react';
import { readUtm, UTM_PARAMETERS, writeUtm, type UtmParameter } from '../../../lib/utm';
import './utm-builder.css';

const FIELDS: Record<UtmParameter, { label: string; example: string }> = {
  utm_source: { label: 'Source', example: 'newsletter' },
  utm_medium: { label: 'Medium', example: 'email' },
  utm_campaign: { label: 'Campaign', example: 'spring_sale' },
};

/**
 * Campaign parameters for the URL being shortened: each field reads its parameter from the
 * URL and writes it back there, so the URL field and these fields never disagree. Folded
 * away until asked for.
 */
export function UtmBuilder({
  url,
  onChange,
  readOnly,
}: {
  url: string;
  onChange: (url: string) => void;
  readOnly: boolean;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const ids = { utm_source: useId(), utm_medium: useId(), utm_campaign: useId() };
  return (
    <div className="utm">
      <button
        type="button"
        className="disclosure-toggle"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((shown) => !shown)}
      >
        UTM parameters
      </button>
      <fieldset id={panelId} className="utm__fields" hidden={!open}>
        <legend className="visually-hidden">UTM parameters</legend>
        {UTM_PARAMETERS.map((name) => (
          <div key={name} className="utm__field">
            <label htmlFor={ids[name]} className="utm__label">
              {FIELDS[name].label} <code>{name}</code>
            </label>
            <input
              id={ids[name]}
              className="utm__input"
              type="text"
              autoComplete="off"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              placeholder={FIELDS[name].example}
              value={readUtm(url, name)}
              readOnly={readOnly}
              onChange={(event) => onChange(writeUtm(url, name, event.target.value))}
            />
          </div>
        ))}
        <p className="utm__hint">Added to the URL above as you type.</p>
      </fieldset>
    </div>
  );
}
