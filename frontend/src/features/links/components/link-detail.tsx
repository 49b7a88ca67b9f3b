import type { ShortLink } from '@shortener/contracts/web';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { ErrorMessage } from '../../../components/feedback';
import { IconButton } from '../../../components/icon-button';
import {
  ArrowLeftIcon,
  CheckIcon,
  CopyIcon,
  ExternalIcon,
  PencilIcon,
  TrashIcon,
} from '../../../components/icons';
import { copyText } from '../../../lib/clipboard';
import { formatDate, formatRemaining, formatTime } from '../../../lib/format';
import { useNow } from '../../../lib/use-now';
import { displayUrl } from '../../../lib/display-url';
import { isWebUrl, shortUrlOf, splitQuery } from '../../../lib/url';
import { useDeleteLink } from '../hooks/use-delete-link';
import { EditLinkForm } from './edit-link-form';
import { LinkRules } from './link-rules';
import { MixedScriptsBadge } from './mixed-scripts-badge';
import './link-detail.css';

/** How long 'Saved.' stays after an edit was saved. */
const SAVED_SHOWN_MS = 4_000;

/** Detail (SPEC section 2): one link, its short form and its numbers. Visitors sit below it. */
export function LinkDetail({ link }: { link: ShortLink }) {
  const navigate = useNavigate();
  const { remove, pending, error } = useDeleteLink();
  const now = useNow();
  const [copied, setCopied] = useState(false);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const shortLink = shortUrlOf(link);
  const { origin, pathname: path } = new URL(shortLink);
  // Where the short link really goes, not the text as it was typed.
  const shown = displayUrl(link.originalUrl);
  const { base, query } = splitQuery(shown.text);

  // 'Saved.' is said once, then goes: it would read as stale beside a later change.
  useEffect(() => {
    if (!saved) return;
    const timer = window.setTimeout(() => setSaved(false), SAVED_SHOWN_MS);
    return () => window.clearTimeout(timer);
  }, [saved]);

  function onEditDone(done: boolean) {
    setEditing(false);
    setSaved(done);
    // The form is gone: the keyboard goes on from the button that opened it.
    editButton.current?.focus();
  }

  async function onDelete() {
    if (await remove(link.urlID)) await navigate('/profile');
  }

  async function onCopy() {
    if (await copyText(shortLink)) setCopied(true);
  }

  const original = (
    <>
      <span className="detail__base">{base}</span>
      {query && <span className="detail__query">{query}</span>}
    </>
  );

  return (
    <>
      <div className="detail__toolbar">
        <IconButton
          label="Back"
          icon={<ArrowLeftIcon />}
          onClick={() => void navigate('/profile')}
        />
      </div>

      <article className="detail card" aria-labelledby="detail-heading">
        <p className="detail__overline">Original URL</p>
        <h1 id="detail-heading" className="detail__title">
          {isWebUrl(shown.href) ? (
            <a href={shown.href} target="_blank" rel="noopener noreferrer">
              {original}
              <ExternalIcon className="detail__external" width={18} height={18} />
              <span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          ) : (
            original
          )}
          {shown.mixedScriptHost && <MixedScriptsBadge host={shown.mixedScriptHost} />}
        </h1>

        <div className="detail__short">
          {/* It may wrap between the host and /r/{code}, never inside either. */}
          <code className="detail__short-link">
            <span>{origin}</span>
            <wbr />
            <span>{path}</span>
          </code>
          <IconButton
            label="Copy short link"
            text="Copy"
            icon={copied ? <CheckIcon /> : <CopyIcon />}
            onClick={() => void onCopy()}
          />
          <span className="detail__copied" role="status">
            {copied ? 'Copied' : ''}
          </span>
        </div>

        <dl className="detail__stats">
          <div className="detail__stat">
            <dt>Created at</dt>
            <dd>
              <time dateTime={link.createdAt}>
                {formatDate(link.createdAt)} <span>{formatTime(link.createdAt)}</span>
              </time>
            </dd>
          </div>
          <div className="detail__stat">
            <dt>Expires in</dt>
            <dd className="tabular">{formatRemaining(link.expiresAt, now)}</dd>
          </div>
          <div className="detail__stat">
            <dt>Visitors</dt>
            <dd>{link.visitCount}</dd>
          </div>
        </dl>

        <LinkRules link={link} />

        {/* Last, at the foot of the card: never the first control a thumb meets beside Back. */}
        <div className="detail__actions">
          {/* Announced politely, where the eye is once the form closes. */}
          <p className="detail__saved" role="status">
            {saved ? 'Saved.' : ''}
          </p>
          <IconButton
            ref={editButton}
            label="Edit"
            icon={<PencilIcon />}
            aria-expanded={editing}
            onClick={() => {
              setSaved(false);
              setEditing((open) => !open);
            }}
          />
          <IconButton
            label="Delete"
            tone="danger"
            icon={<TrashIcon />}
            aria-busy={pending === link.urlID}
            onClick={() => void onDelete()}
          />
          {/* Beside the button that failed, not at the top of the page, out of a phone's sight. */}
          {error && <ErrorMessage>{error}</ErrorMessage>}
        </div>
        {editing && <EditLinkForm link={link} onDone={onEditDone} />}
      </article>
    </>
  );
}
