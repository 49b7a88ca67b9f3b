import { CreateAnalytics1763950000000 } from './1763950000000-create-analytics';
import { VisitStats1764000000000 } from './1764000000000-visit-stats';
import { AliasCodes1796100000000 } from './1796100000000-alias-codes';
import { PartitionVisits1796200000000 } from './1796200000000-partition-visits';
import { VisitUtm1796350000000 } from './1796350000000-visit-utm';
import { AccountStats1796700000000 } from './1796700000000-account-stats';
import { VisitorCounts1796800000000 } from './1796800000000-visitor-counts';
import { AccountTopLinks1796900000000 } from './1796900000000-account-top-links';
import { LinkOwnerDomains1797000000000 } from './1797000000000-link-owner-domains';
import { KeptVisitors1797100000000 } from './1797100000000-kept-visitors';
import { AscendingVisitIndex1797200000000 } from './1797200000000-ascending-visit-index';

/**
 * Every migration of the `analytics` schema, oldest first. A new one expands and contracts
 * (docs/operations/upgrades.md): the schema it leaves still runs the previous release.
 */
export const analyticsMigrations = [
  CreateAnalytics1763950000000,
  VisitStats1764000000000,
  AliasCodes1796100000000,
  PartitionVisits1796200000000,
  VisitUtm1796350000000,
  AccountStats1796700000000,
  VisitorCounts1796800000000,
  AccountTopLinks1796900000000,
  LinkOwnerDomains1797000000000,
  KeptVisitors1797100000000,
  AscendingVisitIndex1797200000000,
];
