import { MESSAGES, type ShortLink, type UserData, type Visit } from '@shortener/contracts/web';
import { useCallback, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { RequireUser, useSession } from '../../features/auth';
import { ErrorMessage, Loading } from '../../components/feedback';
import { Unreachable } from '../../components/unreachable';
import { LinkDetail, useLinkLookup } from '../../features/links';
import { LinkStats } from '../../features/stats';
import { VisitorList } from '../../features/visitors';
import { UNREACHABLE } from '../../lib/api';
import { usePageTitle } from '../../lib/use-page-title';

export function LinkDetailRoute() {
  const { id = '' } = useParams();
  usePageTitle('Link details');
  return <RequireUser tall>{(user) => <FindLink key={id} id={id} user={user} />}</RequireUser>;
}

/**
 * The link among those the list has loaded (userData's page and those after it), or else
 * asked of the server: an older link opened from a search, or by its address.
 */
function FindLink({ id, user }: { id: string; user: UserData }) {
  const { more, loadUser, removeLink } = useSession();
  const loaded =
    user.urls.find((candidate) => candidate.urlID === id) ??
    more.find((candidate) => candidate.urlID === id);
  const lookup = useLinkLookup(loaded ? null : id);
  const reloadUser = useCallback(() => loadUser({ refresh: true }), [loadUser]);
  const { reload } = lookup;
  // Deleted elsewhere: out of the loaded list, or (looked up) asked again, to hear it is gone.
  const gone = useCallback(() => {
    removeLink(id);
    void reload();
  }, [removeLink, reload, id]);
  if (loaded) {
    return <LinkPage key={loaded.urlID} link={loaded} reload={reloadUser} onGone={gone} />;
  }
  if (lookup.status === 'error' && lookup.error === UNREACHABLE) {
    return <Unreachable onRetry={() => void reload()} />;
  }
  if (lookup.status === 'error') return <ErrorMessage>{lookup.error}</ErrorMessage>;
  if (lookup.link) {
    return <LinkPage key={lookup.link.urlID} link={lookup.link} reload={reload} onGone={gone} />;
  }
  if (lookup.status === 'missing') return <UrlNotFound />;
  return <Loading tall />;
}

/**
 * The spec's detail, its stats, then the visitor log. Live visits join the log and the count
 * (refetched together when some were missed); a deleted link is forgotten (not found).
 */
interface LinkPageProps {
  link: ShortLink;
  /** Fetches the link's numbers again. */
  reload: () => Promise<void>;
  /** The link was deleted (the live stream says so). */
  onGone: () => void;
}

function LinkPage({ link, reload, onGone }: LinkPageProps) {
  const [live, setLive] = useState<Visit[]>([]);
  // Live visits already in link.visitCount: those shown when the user was last reloaded.
  const [counted, setCounted] = useState(0);
  const [refetches, setRefetches] = useState(0);
  const onLiveVisit = useCallback((visit: Visit) => {
    const { _id, createdAt, userAgent, ipAddress, bot, referrer } = visit;
    setLive((shown) =>
      shown.some((known) => known._id === _id)
        ? shown
        : [{ _id, createdAt, userAgent, ipAddress, bot, referrer }, ...shown],
    );
  }, []);
  const shown = live.length;
  const onLiveRefetch = useCallback(() => setRefetches((count) => count + 1), []);
  const onLogRefreshed = useCallback(() => {
    void reload().then(() => setCounted(shown));
  }, [reload, shown]);
  const visitCount = link.visitCount + live.length - counted;
  return (
    <>
      <LinkDetail link={{ ...link, visitCount }} />
      <LinkStats
        urlID={link.urlID}
        shortUrl={link.shortUrl}
        visitCount={visitCount}
        onLiveVisit={onLiveVisit}
        onLiveRefetch={onLiveRefetch}
        onLinkGone={onGone}
      />
      <VisitorList
        urlID={link.urlID}
        live={live}
        refetches={refetches}
        onRefreshed={onLogRefreshed}
      />
    </>
  );
}

function UrlNotFound() {
  const navigate = useNavigate();
  return (
    <div className="empty-state card">
      <h1 className="empty-state__title">{MESSAGES.urlNotFound}</h1>
      <button
        type="button"
        className="button button--secondary"
        onClick={() => void navigate('/profile')}
      >
        Your links
      </button>
    </div>
  );
}
