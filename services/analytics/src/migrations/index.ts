import { CreateAnalytics1763950000000 } from './1763950000000-create-analytics';
import { VisitStats1764000000000 } from './1764000000000-visit-stats';
import { AliasCodes1796100000000 } from './1796100000000-alias-codes';
import { PartitionVisits1796200000000 } from './1796200000000-partition-visits';

/**
 * Every migration of the `analytics` schema, oldest first.
 *
 * The rule for a new one (expand and contract): the schema it leaves must run the previous
 * release unchanged (its reads, deletes and writes, each `ON CONFLICT (…)` with a unique key on
 * exactly those columns), so analytics can be rolled back one release. Expand in release N
 * (new tables, nullable or defaulted columns, indexes built CONCURRENTLY, wider types; a
 * replaced table kept complete and writable under its name); contract in N+1 or later (drop
 * what only N-1 read). A copy runs in resumable slices within PARTITION_COPY_SECONDS, as
 * PartitionVisits does. PartitionVisits itself broke the rule: the release before it (9dfc0f9
 * and older) cannot store visits on the partitioned table, so analytics cannot be rolled back
 * across it. Every release since keeps it: tests/faults/rolling-upgrade rolls analytics out
 * from the previous release (tests/compat/previous-release.json) and back to it, on this
 * schema, every visit stored once.
 */
export const analyticsMigrations = [
  CreateAnalytics1763950000000,
  VisitStats1764000000000,
  AliasCodes1796100000000,
  PartitionVisits1796200000000,
];
