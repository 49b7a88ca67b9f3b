import { OTHER_ENTRY, type AccountStats } from '@shortener/contracts/web-analytics';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { CsvButton } from '../../stats/components/csv-button';
import { StatsChart } from '../../stats/components/stats-chart';
import { StatsTotals } from '../../stats/components/stats-totals';
import { TopList } from '../../stats/components/top-list';
import { named, statsLists, type TopEntry } from '../../stats/lib/stats-lists';
import '../../stats/components/stats-section.css';
import { LIVE_TEXT } from '../../stats/hooks/use-live-visits';
import { downloadAnalyticsCsv } from '../api/download-analytics-csv';
import { useAnalytics } from '../hooks/use-analytics';
import {
  viewFromSearch,
  viewQuery,
  withFilter,
  withRange,
  type AnalyticsFilter,
  type AnalyticsView,
} from '../lib/analytics-view';
import { FilterChips } from './filter-chips';
import { RangePicker } from './range-picker';
import './analytics-page.css';

/** The lists beyond a link's own: its links and campaigns, by the filter each entry sets. */
function accountLists(
  stats: AccountStats,
): { title: string; filter: AnalyticsFilter; entries: TopEntry[] }[] {
  return [
    {
      title: 'Links',
      filter: 'link',
      entries: stats.links.map(({ urlID, visits }) => ({ key: urlID, label: urlID, visits })),
    },
    ...statsLists(stats),
    { title: 'UTM sources', filter: 'utm_source', entries: named(stats.utmSources) },
    { title: 'UTM media', filter: 'utm_medium', entries: named(stats.utmMediums) },
    { title: 'UTM campaigns', filter: 'utm_campaign', entries: named(stats.utmCampaigns) },
  ];
}

/** The summed smallest entries are no value to filter by. */
const canPick = (entry: TopEntry) => entry.key !== OTHER_ENTRY;

/**
 * Every link of the account together: range or period, totals against the period before,
 * the chart, and the top lists, each entry of which filters the page. The view lives in the
 * URL's query under the API's own names, so that it can be bookmarked and shared.
 */
export function AnalyticsPage() {
  const [search, setSearch] = useSearchParams();
  const view = useMemo(() => viewFromSearch(search), [search]);
  const query = useMemo(() => viewQuery(view), [view]);
  const { stats, status, error, unreachable, retry, updatedAt, live, busy } = useAnalytics(query);
  const go = (next: AnalyticsView) => setSearch(new URLSearchParams(viewQuery(next)));

  return (
    <div className="stats analytics">
      <div className="stats__header">
        <h1 className="analytics__title">Analytics</h1>
        <p className={`stats__live stats__live--${live}`} role="status">
          <span className="stats__live-dot" aria-hidden="true" />
          {LIVE_TEXT[live]}
          {updatedAt !== null && status !== 'error' && (
            <span className="analytics__updated tabular">
              {` · updated ${new Date(updatedAt).toLocaleTimeString()}`}
            </span>
          )}
        </p>
      </div>
      <p className="analytics__lead">All your links together.</p>

      <RangePicker
        range={view.range}
        period={view.period}
        onRange={(range) => go(withRange(view, range))}
        onPeriod={(period) => go({ ...view, period })}
      />
      <FilterChips
        filters={view.filters}
        onRemove={(name) => go(withFilter(view, name, undefined))}
        onClear={() => go({ ...view, filters: {} })}
      />

      {status === 'error' && (
        <ErrorMessage
          action={
            <button type="button" className="button button--secondary" onClick={retry}>
              {unreachable ? 'Retry' : 'Try again'}
            </button>
          }
        >
          {`Analytics could not be loaded: ${error ?? ''}`}
        </ErrorMessage>
      )}
      {status === 'loading' && !stats && <Loading tall>Loading analytics…</Loading>}

      {stats && (
        <div className="stats__body" aria-busy={busy}>
          <h2 className="visually-hidden">Totals</h2>
          {stats.totals.visits === 0 && (
            <p className="stats__empty">
              No visits in this period{filtered(view) ? ' with these filters' : ''}
            </p>
          )}
          <StatsTotals totals={stats.totals} previous={stats.previous} range={stats.range} />
          {/* A new range starts again from its newest bar. */}
          <StatsChart key={`${stats.range}-${String(stats.from)}`} stats={stats} />
          <h2 className="analytics__subtitle">Top lists</h2>
          <div className="stats__lists">
            {accountLists(stats).map((list) => (
              <TopList
                key={list.title}
                title={list.title}
                entries={list.entries}
                pick={{
                  active: view.filters[list.filter],
                  canPick,
                  onPick: (entry) =>
                    go(
                      withFilter(
                        view,
                        list.filter,
                        view.filters[list.filter] === entry.key ? undefined : entry.key,
                      ),
                    ),
                }}
              />
            ))}
          </div>
          <div className="stats__tools">
            <section className="stats__tool" aria-labelledby="analytics-export-heading">
              <h3 id="analytics-export-heading" className="top-list__title">
                Export
              </h3>
              <p className="analytics__hint">
                Every visit in this view{filtered(view) ? ', as filtered' : ''}, a row each.
              </p>
              <CsvButton download={() => downloadAnalyticsCsv(query)} />
            </section>
          </div>
        </div>
      )}
    </div>
  );
}

function filtered(view: AnalyticsView): boolean {
  return Object.keys(view.filters).length > 0;
}
