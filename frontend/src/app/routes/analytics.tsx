import { RequireUser } from '../../features/auth';
import { AnalyticsPage } from '../../features/analytics';
import { usePageTitle } from '../../lib/use-page-title';

/** Every link of the account together: /analytics, its view in the query (?range=7d&country=GB). */
export function AnalyticsRoute() {
  usePageTitle('Analytics');
  return <RequireUser>{() => <AnalyticsPage />}</RequireUser>;
}
