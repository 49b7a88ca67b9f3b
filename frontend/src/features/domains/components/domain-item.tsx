import type { Domain } from '@shortener/contracts/web-domains';
import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { IconButton } from '../../../components/icon-button';
import { CheckIcon, CopyIcon, TrashIcon } from '../../../components/icons';
import { copyText } from '../../../lib/clipboard';
import { verifyDomain } from '../api/domains';

/**
 * One domain: its host and state; unverified, the TXT record to create (each part with a
 * copy button) and Verify, which says what is missing when the record is not there yet.
 */
export function DomainItem({
  domain,
  removing,
  onVerified,
  onRemove,
  onSignedOut,
}: {
  domain: Domain;
  removing: boolean;
  onVerified: (domain: Domain) => void;
  onRemove: () => void;
  onSignedOut: () => void;
}) {
  const hostId = useId();
  const [verifying, setVerifying] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const { name, value } = domain.verification;

  async function verify() {
    if (verifying) return;
    setVerifying(true);
    setRefusal(null);
    const result = await verifyDomain(domain.host);
    setVerifying(false);
    if (result.ok) onVerified(result.data);
    else if (result.signedOut) onSignedOut();
    else setRefusal(result.message);
  }

  return (
    <li className="domain">
      <div className="domain__head">
        <p className="domain__host" id={hostId}>
          {domain.host}
        </p>
        <span className={`domain__state${domain.verified ? ' domain__state--verified' : ''}`}>
          {domain.verified ? 'Verified' : 'Not verified'}
        </span>
        <IconButton
          label="Remove"
          tone="danger"
          icon={<TrashIcon />}
          className="domain__remove"
          aria-describedby={hostId}
          aria-busy={removing}
          disabled={removing}
          onClick={onRemove}
        />
      </div>
      {domain.verified ? (
        <p className="domain__note">
          Keep its TXT record <code>{name}</code>: it proves the domain yours.{' '}
          <Link to={`/analytics?${new URLSearchParams({ domain: domain.host }).toString()}`}>
            Its links' analytics
          </Link>
        </p>
      ) : (
        <>
          <p className="domain__note">Create this TXT record at your DNS provider:</p>
          <dl className="domain__record">
            <RecordPart term="Type" text="TXT" />
            <RecordPart term="Name" text={name} copyLabel="Copy record name" />
            <RecordPart term="Value" text={value} copyLabel="Copy record value" />
          </dl>
          <div className="domain__verify">
            <button
              type="button"
              className="button button--primary"
              aria-busy={verifying}
              aria-describedby={hostId}
              onClick={() => void verify()}
            >
              {verifying ? 'Verifying..' : 'Verify'}
            </button>
            <p className="domain__progress" role="status">
              {verifying ? `Looking up the TXT record of ${domain.host}…` : ''}
            </p>
          </div>
          {refusal !== null && (
            <p className="domain__refusal" role="alert">
              {refusal}
            </p>
          )}
        </>
      )}
    </li>
  );
}

/** One line of the record: its term, its text, and a button that copies the text. */
function RecordPart({ term, text, copyLabel }: { term: string; text: string; copyLabel?: string }) {
  const [copied, setCopied] = useState(false);
  const textId = useId();
  return (
    <div className="domain__record-part">
      <dt>{term}</dt>
      <dd>
        <code id={textId}>{text}</code>
        {copyLabel && (
          <IconButton
            label={copyLabel}
            text={copied ? 'Copied' : 'Copy'}
            icon={copied ? <CheckIcon /> : <CopyIcon />}
            aria-describedby={textId}
            onClick={() => void copyText(text).then(setCopied)}
          />
        )}
      </dd>
    </div>
  );
}
