import { ShortenForm } from '../../features/links';
import { usePageTitle } from '../../lib/use-page-title';

export function HomeRoute() {
  usePageTitle();
  return <ShortenForm />;
}
