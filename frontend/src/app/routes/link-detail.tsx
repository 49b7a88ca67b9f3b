import { MESSAGES, type ShortLink, type Visit } from '@shortener/contracts/web';
import { useCallback, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { RequireUser } from '../../features/auth';
import { LinkDetail } from '../../features/links';
import { LinkStats } from '../../features/stats';
import { VisitorList } from '../../features/visitors';
import { usePageTitle } from '../../lib/use-page-title';

export function LinkDetailRoute() {
  const { id = '' } = useParams();
  usePageTitle('Link details');
  return (
    <RequireUser>
      {(user) => {
        const link = user.urls.find((candidate) => candidate.urlID === id);
        if (!link) return <UrlNotFound />;
        return <LinkPage key={link.urlID} link={link} />;
      }}
    </RequireUser>
  );
}

/**
 * The spec's detail and visitor log, then the stats below them. Visits the stats' live
 * stream announces join the visitor log (newest first) and the detail's visitor count.
 */
function LinkPage({ link }: { link: ShortLink }) {
  const [live, setLive] = useState<Visit[]>([]);
  const onLiveVisit = useCallback((visit: Visit) => {
    const { _id, createdAt, userAgent, ipAddress } = visit;
    setLive((shown) =>
      shown.some((known) => known._id === _id)
        ? shown
        : [{ _id, createdAt, userAgent, ipAddress }, ...shown],
    );
  }, []);
  return (
    <>
      <LinkDetail link={{ ...link, visitCount: link.visitCount + live.length }} />
      <VisitorList urlID={link.urlID} live={live} />
      <LinkStats urlID={link.urlID} onLiveVisit={onLiveVisit} />
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
