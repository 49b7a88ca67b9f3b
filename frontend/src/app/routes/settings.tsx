import { Link } from 'react-router-dom';
import { ApiKeysSection } from '../../features/api-keys';
import { RequireUser } from '../../features/auth';
import { DomainsSection } from '../../features/domains';
import { usePageTitle } from '../../lib/use-page-title';
import './settings.css';

/**
 * The account's settings, apart from the list of links (which can run to thousands): for now
 * its API keys and its domains. A path of its own, outside /profile/{id}, where any code could be a link's.
 */
export function SettingsRoute() {
  usePageTitle('Settings');
  return (
    <RequireUser>
      {() => (
        <div className="settings">
          <div className="settings__header">
            <h1 className="settings__title">Settings</h1>
            <Link className="button button--secondary settings__back" to="/profile">
              Your links
            </Link>
          </div>
          <ApiKeysSection />
          <DomainsSection />
        </div>
      )}
    </RequireUser>
  );
}
