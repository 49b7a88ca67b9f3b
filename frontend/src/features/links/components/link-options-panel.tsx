import { lazy, Suspense, useId, useState } from 'react';
import { Loading } from '../../../components/feedback';
import type { LinkOptions } from '../link-options';
import './link-options-panel.css';

// Its own chunk, fetched when first opened: the home page's JavaScript stays within budget.
const LinkOptionsFields = lazy(async () => ({
  default: (await import('./link-options-fields')).LinkOptionsFields,
}));

/**
 * 'Domain and rules' folded under the shorten form (signed in): the link's domain, its
 * targeting, a password and a visit cap. Open by itself when a refusal is about them.
 */
export function LinkOptionsPanel({
  options,
  onChange,
  readOnly,
  refusal,
  host,
}: {
  options: LinkOptions;
  onChange: (options: LinkOptions) => void;
  readOnly: boolean;
  refusal: string | null;
  host: string;
}) {
  const [opened, setOpened] = useState(false);
  const panelId = useId();
  const open = opened || refusal !== null;
  return (
    <div className="options-panel">
      <button
        type="button"
        className="disclosure-toggle"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpened(!open)}
      >
        Domain and rules
      </button>
      <div id={panelId} hidden={!open}>
        {open && (
          <Suspense fallback={<Loading />}>
            <LinkOptionsFields
              options={options}
              onChange={onChange}
              readOnly={readOnly}
              refusal={refusal}
              host={host}
            />
          </Suspense>
        )}
      </div>
    </div>
  );
}
