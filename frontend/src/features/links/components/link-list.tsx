import {
  LINKS_SEARCH_MAX,
  type LinksSort,
  type ShortLink,
  type UserData,
} from '@shortener/contracts/web';
import { useId, useRef, useState, type MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { ErrorMessage } from '../../../components/feedback';
import { IconButton } from '../../../components/icon-button';
import {
  CheckIcon,
  ChevronRightIcon,
  CopyIcon,
  RefreshIcon,
  TrashIcon,
} from '../../../components/icons';
import { copyText } from '../../../lib/clipboard';
import { formatRemaining } from '../../../lib/format';
import { useNowAtEach, useNowWhileVisible } from '../../../lib/use-now';
import { displayUrl, urlParts } from '../../../lib/display-url';
import { shortUrlOf } from '../../../lib/url';
import { useSession } from '../../auth';
import { useDeleteLink } from '../hooks/use-delete-link';
import { useLinkSearch, useMoreLinks } from '../hooks/use-link-pages';
import { MixedScriptsBadge } from './mixed-scripts-badge';
import './link-list.css';

/**
 * Profile (SPEC section 2): the user's links that have not expired, counting down live. The
 * first page is userData's; "Load more" adds the next, and a search lists the links that
 * contain it instead. Only the pages asked for are ever fetched.
 */
export function LinkList({ user }: { user: UserData }) {
  const {
    loadUser,
    status,
    error: loadError,
    more: loaded,
    nextCursor,
    total: userTotal,
  } = useSession();
  const { remove, pending, error: deleteError } = useDeleteLink();
  const more = useMoreLinks();
  const [typed, setTyped] = useState('');
  const [sort, setSort] = useState<LinksSort>('newest');
  const search = useLinkSearch(typed, sort);
  const navigate = useNavigate();
  const searching = search.active;
  const sortId = useId();
  const listed = searching ? (search.links ?? []) : [...user.urls, ...loaded];
  // The list changes when a link expires, not each second: each row's countdown keeps time.
  const now = useNowAtEach(listed.map((link) => link.expiresAt));
  const links = listed.filter((link) => link.expiresAt > now);
  const error = deleteError ?? loadError ?? (searching ? search.error : more.error);
  const next = searching ? search.nextCursor : nextCursor;
  const total = searching ? search.total : userTotal;
  const loadingMore = searching ? search.loadingMore : more.loading;

  async function onDelete(urlID: string) {
    if (await remove(urlID)) search.forget(urlID);
  }

  return (
    <section className="links" aria-labelledby="links-heading">
      <div className="page-header">
        <h1 id="links-heading" className="page-header__title">
          {user.fullName}&apos;s URLs
        </h1>
        <div className="page-header__actions">
          {/* The account's API keys have a page of their own, not the foot of a long list. */}
          <Link className="button button--secondary" to="/settings">
            API keys
          </Link>
          {/* A same-origin POST, as a full navigation: the server ends the session and both
              cookies. A GET /logout ends nothing, so no other site can sign anyone out. */}
          <form className="page-header__form" method="post" action="/logout">
            <button type="submit" className="button button--secondary">
              Sign out
            </button>
          </form>
          <IconButton
            label="Refresh"
            icon={<RefreshIcon />}
            aria-busy={status === 'loading'}
            onClick={() => void loadUser({ refresh: true })}
          />
        </div>
      </div>

      {(user.urls.length > 0 || searching) && (
        <>
          <form
            className="links__search"
            role="search"
            onSubmit={(event) => event.preventDefault()}
          >
            <input
              type="search"
              className="links__search-input"
              aria-label="Search your links"
              placeholder="Search by URL or code"
              maxLength={LINKS_SEARCH_MAX}
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
            />
          </form>
          <div className="links__toolbar">
            <p className="links__total" role="status">
              {total !== null &&
                (search.query !== ''
                  ? `${String(total)} ${total === 1 ? 'link matches' : 'links match'}`
                  : `${String(total)} ${total === 1 ? 'link' : 'links'}`)}
            </p>
            <label className="links__sort" htmlFor={sortId}>
              Sort by
              <select
                id={sortId}
                className="links__sort-select"
                value={sort}
                onChange={(event) => setSort(event.target.value as LinksSort)}
              >
                <option value="newest">Newest</option>
                <option value="expiring">Expiring soon</option>
                <option value="visits">Most visited</option>
              </select>
            </label>
          </div>
        </>
      )}

      {error && <ErrorMessage>{error}</ErrorMessage>}

      {searching && search.links === null ? (
        !search.error && (
          <p className="links__status" role="status">
            {search.query !== '' ? 'Searching..' : 'Loading..'}
          </p>
        )
      ) : search.query !== '' && links.length === 0 ? (
        <p className="links__status" role="status">
          No links match &ldquo;{search.query}&rdquo;
        </p>
      ) : links.length === 0 ? (
        <div className="empty-state card">
          <p>No urls to display</p>
          <button
            type="button"
            className="button button--primary"
            onClick={() => void navigate('/')}
          >
            Shorten a URL
          </button>
        </div>
      ) : (
        <ol className="links__list">
          {links.map((link, index) => (
            <LinkItem
              key={link.urlID}
              link={link}
              position={index + 1}
              deleting={pending === link.urlID}
              onOpen={() => void navigate(`/profile/${encodeURIComponent(link.urlID)}`)}
              onDelete={() => void onDelete(link.urlID)}
            />
          ))}
        </ol>
      )}

      {next !== null && links.length > 0 && (
        <div className="links__more">
          <button
            type="button"
            className="button button--secondary"
            aria-busy={loadingMore}
            disabled={loadingMore}
            onClick={() => void (searching ? search.loadMore() : more.loadMore())}
          >
            {loadingMore ? 'Loading..' : 'Load more'}
          </button>
        </div>
      )}
    </section>
  );
}

interface LinkItemProps {
  link: ShortLink;
  position: number;
  deleting: boolean;
  onOpen: () => void;
  onDelete: () => void;
}

function LinkItem({ link, position, deleting, onOpen, onDelete }: LinkItemProps) {
  const urlId = useId();
  const [copied, setCopied] = useState(false);
  // Where the short link really goes, not the text as it was typed (SPEC: "original URL").
  const shown = displayUrl(link.originalUrl);
  const { scheme, host, middle, end } = urlParts(shown.text);
  const shortLink = shortUrlOf(link);

  function openUnlessSelecting() {
    // Selecting the URL to copy it should not leave the page.
    if (window.getSelection()?.toString()) return;
    onOpen();
  }

  function only(action: () => void) {
    return (event: MouseEvent) => {
      event.stopPropagation();
      action();
    };
  }

  async function onCopy() {
    if (await copyText(shortLink)) setCopied(true);
  }

  return (
    <li className="link-item card" onClick={openUnlessSelecting}>
      <span className="link-item__position" aria-hidden="true">
        {position}
      </span>
      <div className="link-item__body">
        <p className="link-item__url" id={urlId} title={shown.text}>
          {/* The whole URL is the text (screen readers read it all, a tap opens it whole). The
              host is shown whole, on a line of its own if it must; the path after it keeps to
              one line, its middle cut with one ellipsis, never its end. */}
          <span className="link-item__url-text">
            <span className="visually-hidden">{scheme}</span>
            <span className="link-item__url-host">{host}</span>
            {(middle !== '' || end !== '') && (
              <span className="link-item__url-path">
                <span className="link-item__url-middle">{middle}</span>
                {/* Cut, if it must be, at its start: the last characters stay. */}
                <span className="link-item__url-end">
                  <span dir="ltr">{end}</span>
                </span>
              </span>
            )}
          </span>
          {shown.mixedScriptHost && <MixedScriptsBadge host={shown.mixedScriptHost} />}
        </p>
        <p className="link-item__short">
          <span className="visually-hidden">Short link: </span>
          {shortLink.replace(/^https?:\/\//, '')}
        </p>
        <dl className="link-item__stats">
          <div>
            <dt>visitCount</dt>
            <dd>{link.visitCount}</dd>
          </div>
          <div>
            <dt>Expires In</dt>
            <Countdown expiresAt={link.expiresAt} />
          </div>
        </dl>
      </div>
      <div className="link-item__actions">
        <IconButton
          label="Copy short link"
          text={copied ? 'Copied' : 'Copy'}
          icon={copied ? <CheckIcon /> : <CopyIcon />}
          aria-describedby={urlId}
          onClick={only(() => void onCopy())}
        />
        <IconButton
          label="Details"
          icon={<ChevronRightIcon />}
          aria-describedby={urlId}
          onClick={only(onOpen)}
        />
        <IconButton
          label="Delete"
          tone="danger"
          icon={<TrashIcon />}
          aria-describedby={urlId}
          aria-busy={deleting}
          onClick={only(onDelete)}
        />
      </div>
    </li>
  );
}

/**
 * 'Expires In', counting down each second while on screen: of a long list only the rows in
 * view redraw, so a slow phone is not kept busy by the hundreds scrolled past.
 */
function Countdown({ expiresAt }: { expiresAt: number }) {
  const ref = useRef<HTMLElement>(null);
  const now = useNowWhileVisible(ref);
  return (
    <dd ref={ref} className="tabular">
      {formatRemaining(expiresAt, now)}
    </dd>
  );
}
