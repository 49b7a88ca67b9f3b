import { RequireUser } from '../../features/auth';
import { LinkList } from '../../features/links';
import { usePageTitle } from '../../lib/use-page-title';

export function ProfileRoute() {
  usePageTitle('Your links');
  return <RequireUser>{(user) => <LinkList user={user} />}</RequireUser>;
}
