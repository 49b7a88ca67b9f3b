import {
  DIRECT_REFERRER,
  STATS_RANGES,
  type LiveVisit,
  type StatsRange,
} from '@shortener/contracts/web-stats';
import { useState } from 'react';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { shortUrlOf } from '../../../lib/url';
import { useSession } from '../../auth';
import { downloadVisitsCsv } from '../api/download-csv';
import { useLiveVisits, type LiveStatus } from '../hooks/use-live-visits';
import { useStats } from '../hooks/use-stats';
import { countryLabel } from '../lib/country-name';
import { deviceName, systemName } from '../../../lib/system-name';
import { periodChange } from '../lib/period-change';
import { QrCode } from './qr-code';
import { StatsChart } from './stats-chart';
import { TopList } from './top-list';
import './stats-section.css';

const RANGE_LABELS: Record<StatsRange, string> = {
  '24h': '24h',
  '7d': '7d',
  '30d': '30d',
  all: 'All',
};

const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'Not live',
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
  const previous = stats?.previous;
  const change = (current: number, before: number | undefined) =>
    previous && before !== undefined && stats.range !== 'all'
      ? periodChange(current, before, stats.range)
      : undefined;

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
        <div className="stats__body" aria-busy={status === 'loading'}>
          <dl className="stats__totals">
            <Total
              term="Visits"
              value={stats.totals.visits}
              change={change(stats.totals.visits, previous?.visits)}
            />
            <Total
              term="People"
              value={stats.totals.humans}
              change={change(stats.totals.humans, previous?.humans)}
            />
            <Total
              term="Bots"
              value={stats.totals.bots}
              change={change(stats.totals.bots, previous?.bots)}
            />
            <Total term="Unique visitors" value={stats.totals.uniqueVisitors} />
          </dl>
          {/* A new range starts again from its newest bar. */}
          <StatsChart key={stats.range} stats={stats} />
          <div className="stats__lists">
            <TopList title="Browsers" entries={named(stats.browsers)} />
            <TopList title="OS" entries={named(stats.os, systemName)} />
            <TopList title="Devices" entries={named(stats.devices, deviceName)} />
            <TopList
              title="Referrers"
              entries={named(stats.referrers).map((entry) =>
                entry.key === DIRECT_REFERRER ? { ...entry, label: 'Direct' } : entry,
              )}
            />
            <TopList
              title="Countries"
              entries={stats.countries.map(({ code, visits }) => ({
                key: code,
                label: countryLabel(code),
                visits,
              }))}
            />
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
            <CsvButton urlID={urlID} />
          </section>
        )}
      </div>
    </section>
  );
}

/** One total, and beside it how it changed since the period before (not for All). */
function Total({ term, value, change }: { term: string; value: number; change?: string }) {
  return (
    <div className="stats__total">
      <dt>{term}</dt>
      <dd className="tabular">{value}</dd>
      {change && <dd className="stats__change">{change}</dd>}
    </div>
  );
}

function named(list: { name: string; visits: number }[], name = (key: string) => key) {
  return list.map(({ name: key, visits }) => ({ key, label: name(key), visits }));
}

/** 'Download CSV': every visit, fetched with X-Requested-With and saved as a file. */
function CsvButton({ urlID }: { urlID: string }) {
  const { signOut } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onDownload() {
    setBusy(true);
    setError(null);
    const result = await downloadVisitsCsv(urlID);
    setBusy(false);
    if (!result.ok) {
      setError(result.message);
      if (result.signedOut) signOut();
    }
  }

  return (
    <div className="stats__csv">
      <button
        type="button"
        className="button button--secondary"
        aria-busy={busy}
        disabled={busy}
        onClick={() => void onDownload()}
      >
        {busy ? 'Preparing…' : 'Download CSV'}
      </button>
      {error && <ErrorMessage>{`The CSV could not be downloaded: ${error}`}</ErrorMessage>}
    </div>
  );
}
