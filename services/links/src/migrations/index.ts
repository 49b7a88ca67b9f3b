import { CreateLinks1763900000000 } from './1763900000000-create-links';
import { LinksOwnerCreated1795600000000 } from './1795600000000-links-owner-created';
import { Aliases1796100000000 } from './1796100000000-aliases';
import { UndoableDeletes1796200000000 } from './1796200000000-undoable-deletes';
import { DeletedLinksExpired1796300000000 } from './1796300000000-deleted-links-expired';
import { LinkVersions1796400000000 } from './1796400000000-link-versions';
import { Domains1796500000000 } from './1796500000000-domains';
import { BrandedLinks1796600000000 } from './1796600000000-branded-links';
import { OwnerNotices1796700000000 } from './1796700000000-owner-notices';
import { DomainCacheTold1796800000000 } from './1796800000000-domain-cache-told';
import { OwnerNoticeDomains1796900000000 } from './1796900000000-owner-notice-domains';

/** Every migration of the `links` schema, oldest first. */
export const linksMigrations = [
  CreateLinks1763900000000,
  LinksOwnerCreated1795600000000,
  Aliases1796100000000,
  UndoableDeletes1796200000000,
  DeletedLinksExpired1796300000000,
  LinkVersions1796400000000,
  Domains1796500000000,
  BrandedLinks1796600000000,
  OwnerNotices1796700000000,
  DomainCacheTold1796800000000,
  OwnerNoticeDomains1796900000000,
];
