import { MESSAGES } from '@shortener/contracts/web';
import { useNavigate, useParams } from 'react-router-dom';
import { RequireUser } from '../../features/auth';
import { LinkDetail } from '../../features/links';
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
        return (
          <>
            <LinkDetail link={link} />
            <VisitorList key={link.urlID} urlID={link.urlID} />
          </>
        );
      }}
    </RequireUser>
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
