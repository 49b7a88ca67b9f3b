import { useNavigate } from 'react-router-dom';
import { usePageTitle } from '../../lib/use-page-title';

export function NotFoundRoute() {
  usePageTitle('Page not found');
  const navigate = useNavigate();
  return (
    <div className="empty-state card">
      <h1 className="empty-state__title">Page not found.</h1>
      <button type="button" className="button button--primary" onClick={() => void navigate('/')}>
        Home
      </button>
    </div>
  );
}
