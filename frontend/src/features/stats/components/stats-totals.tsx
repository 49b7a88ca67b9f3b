import type { LinkStats } from '@shortener/contracts/web-stats';
import { periodChange, type ComparedRange } from '../lib/period-change';

interface StatsTotalsProps {
  totals: LinkStats['totals'];
  previous: LinkStats['previous'];
  /** What the previous period is named after: the range, or 'custom' for a chosen period. */
  range: string;
}

/**
 * Visits, people, bots and unique visitors, each beside how it changed since the period
 * before (not for All, which has none): a link's stats and the account's analytics alike.
 */
export function StatsTotals({ totals, previous, range }: StatsTotalsProps) {
  const change = (current: number, before: number | undefined) =>
    previous && before !== undefined && range !== 'all'
      ? periodChange(current, before, range as ComparedRange)
      : undefined;
  return (
    <dl className="stats__totals">
      <Total term="Visits" value={totals.visits} change={change(totals.visits, previous?.visits)} />
      <Total term="People" value={totals.humans} change={change(totals.humans, previous?.humans)} />
      <Total term="Bots" value={totals.bots} change={change(totals.bots, previous?.bots)} />
      <Total term="Unique visitors" value={totals.uniqueVisitors} />
    </dl>
  );
}

/** One total, and beside it how it changed since the period before. */
function Total({ term, value, change }: { term: string; value: number; change?: string }) {
  return (
    <div className="stats__total">
      <dt>{term}</dt>
      <dd className="tabular">{value}</dd>
      {change && <dd className="stats__change">{change}</dd>}
    </div>
  );
}
