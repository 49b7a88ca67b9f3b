import { STATS_RANGES, type LiveVisit, type StatsRange } from '@shortener/contracts/web-stats';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { shortUrlOf } from '../../../lib/url';
import { downloadVisitsCsv } from '../api/download-csv';
import { LIVE_TEXT, useLiveVisits } from '../hooks/use-live-visits';
import { useStats } from '../hooks/use-stats';
import { statsLists } from '../lib/stats-lists';
import { CsvButton } from './csv-button';
import { QrCode } from './qr-code';
import { StatsChart } from './stats-chart';
import { StatsTotals } from './stats-totals';
import { TopList } from './top-list';
import './stats-section.css';

const RANGE_LABELS: Record<StatsRange, string> = {
  '24h': '24h',
  '7d': '7d',
  '30d': '30d',
  all: 'All',
};

export interface StatsSectionProps {
  urlID: string;
  /** The link's short URL, when the API gives it (a link on a domain): what the QR code holds. */
  shortUrl?: string | undefined;
  /** Each visit the live stream announces, for the rest of the page (the visitor log). */
  onLiveVisit?: (visit: LiveVisit) => void;
  /** Live visits were missed: the rest of the page should fetch what it shows again. */
  onLiveRefetch?: () => void;
  /** The live stream says the link was deleted. */
  onLinkGone?: () => void;
  /** The link's visits as the page counts them: with none, the section says so in one line. */
  visitCount?: number;
}

/**
 * The stats of one link, between the spec's detail card and the visitor log: range, totals,
 * chart, top lists, live updates, the QR code and the CSV export. Loaded lazily.
 */
export default function StatsSection({
  urlID,
  shortUrl,
  onLiveVisit,
  onLiveRefetch,
  onLinkGone,
  visitCount,
}: StatsSectionProps) {
  const { range, stats, status, error, unreachable, setRange, retry, addVisit } = useStats(urlID);
  const live = useLiveVisits(urlID, {
    onVisit: (visit) => {
      addVisit(visit);
      onLiveVisit?.(visit);
    },
    onRefetch: () => {
      retry();
      onLiveRefetch?.();
    },
    onLinkGone,
  });

  // A link nobody visited yet: one line, not zero tiles, empty lists and an empty CSV. It
  // grows into the whole section with its first visit (the live stream counts it).
  const empty = visitCount === 0 && (stats?.totals.visits ?? 0) === 0;

  return (
    <section className="stats" aria-labelledby="stats-heading">
      <div className="stats__header">
        <h2 id="stats-heading" className="stats__title">
          Stats
        </h2>
        <p className={`stats__live stats__live--${live}`} role="status">
          <span className="stats__live-dot" aria-hidden="true" />
          {LIVE_TEXT[live]}
        </p>
      </div>

      {empty && <p className="stats__empty">No visits yet</p>}

      {!empty && (
        <div className="stats__ranges" role="group" aria-label="Range">
          {STATS_RANGES.map((option) => (
            <button
              key={option}
              type="button"
              className="stats__range"
              aria-pressed={range === option}
              onClick={() => setRange(option)}
            >
              {RANGE_LABELS[option]}
            </button>
          ))}
        </div>
      )}

      {status === 'error' && (
        <ErrorMessage
          action={
            <button type="button" className="button button--secondary" onClick={retry}>
              {unreachable ? 'Retry' : 'Try again'}
            </button>
          }
        >
          {`Stats could not be loaded: ${error ?? ''}`}
        </ErrorMessage>
      )}
      {status === 'loading' && !stats && (
        // Room kept for the numbers on their way, unless the link has none to show.
        <Loading tall={visitCount !== 0}>Loading stats…</Loading>
      )}

      {stats && !empty && (
        // Dimmed while a new range is on its way; a recount of the range shown is not waited on.
        <div className="stats__body" aria-busy={status === 'loading' && stats.range !== range}>
          <StatsTotals totals={stats.totals} previous={stats.previous} range={stats.range} />
          {/* A new range starts again from its newest bar. */}
          <StatsChart key={stats.range} stats={stats} />
          <div className="stats__lists">
            {statsLists(stats).map((list) => (
              <TopList key={list.title} title={list.title} entries={list.entries} />
            ))}
          </div>
        </div>
      )}

      <div className="stats__tools">
        <section className="stats__tool" aria-labelledby="qr-heading">
          <h3 id="qr-heading" className="top-list__title">
            QR code
          </h3>
          <QrCode urlID={urlID} shortLink={shortUrlOf({ urlID, shortUrl })} />
        </section>
        {!empty && (
          <section className="stats__tool" aria-labelledby="export-heading">
            <h3 id="export-heading" className="top-list__title">
              Export
            </h3>
            <CsvButton download={() => downloadVisitsCsv(urlID)} />
          </section>
        )}
      </div>
    </section>
  );
}
