import type { Visit } from '@shortener/contracts/web';
import { Fragment, useCallback, useEffect, type ReactNode } from 'react';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { IconButton } from '../../../components/icon-button';
import { RefreshIcon } from '../../../components/icons';
import { Unreachable } from '../../../components/unreachable';
import { formatDateTime } from '../../../lib/format';
import { systemName } from '../../../lib/system-name';
import { useVisitors } from '../hooks/use-visitors';
import './visitor-list.css';

/** What a referrer that was no URL with a host reads as, in the answer as in the stats. */
const UNKNOWN_REFERRER = '(unknown)';

export interface VisitorListProps {
  urlID: string;
  /** Visits the stats' live stream announced since the page opened (newest first), on top. */
  live?: Visit[];
  /** Counts the times the live stream missed visits: each time, the list is fetched again. */
  refetches?: number;
  /** The first page came from the server: the page's count should be fetched again too. */
  onRefreshed?: () => void;
}

/** The visitors of one link, newest first, with refresh and 'Load more'. */
export function VisitorList({ urlID, live = [], refetches = 0, onRefreshed }: VisitorListProps) {
  const state = useVisitors(urlID, onRefreshed);
  const { nextCursor, status, refreshing, loadingMore, error, unreachable, refresh, loadMore } =
    state;
  const retry = useCallback(() => void refresh(), [refresh]);
  useEffect(() => {
    if (refetches > 0) void refresh();
  }, [refetches, refresh]);
  const visits = withLive(live, state.visits, nextCursor !== null);
  const empty = status === 'ready' && visits.length === 0;

  return (
    <section className="visitors" aria-labelledby="visitors-heading">
      <div className="visitors__header">
        <h2 id="visitors-heading" className="visitors__title">
          Visitor log
        </h2>
        {!empty && (
          <IconButton
            label="Refresh"
            icon={<RefreshIcon />}
            aria-busy={refreshing}
            onClick={() => void refresh()}
          />
        )}
      </div>

      {/* No answer at all: asked again until one comes, what is shown kept meanwhile. */}
      {error && unreachable && <Unreachable onRetry={retry} />}
      {error && !unreachable && <ErrorMessage>{error}</ErrorMessage>}

      {status === 'loading' && <Loading>Loading visitors…</Loading>}

      {empty && (
        <div className="empty-state card">
          <p>No visitors found</p>
          <button
            type="button"
            className="button button--secondary"
            aria-busy={refreshing}
            onClick={() => void refresh()}
          >
            <RefreshIcon />
            Refresh
          </button>
        </div>
      )}

      {visits.length > 0 && (
        <>
          <div className="visitors__head" aria-hidden="true">
            <span>Time</span>
            <span>Device</span>
            <span>Browser</span>
            <span>IP address</span>
            <span>From</span>
          </div>
          <ol className="visitors__list">
            {visits.map((visit) => (
              <VisitItem key={visit._id} visit={visit} />
            ))}
          </ol>
        </>
      )}

      {nextCursor && visits.length > 0 && (
        <div className="visitors__more">
          <button
            type="button"
            className="button button--secondary"
            aria-busy={loadingMore}
            onClick={() => void loadMore()}
          >
            {loadingMore ? 'Loading..' : 'Load more'}
          </button>
        </div>
      )}
    </section>
  );
}

/**
 * The live visits the pages fetched do not hold, on top of them. One older than the last visit
 * fetched, while pages remain, is left to the page that holds it ('Load more'): the stream may
 * announce a visit stored before the first page was read, and it belongs further down.
 */
function withLive(live: Visit[], fetched: Visit[], morePages: boolean): Visit[] {
  if (live.length === 0) return fetched;
  const fetchedIds = new Set(fetched.map((visit) => visit._id));
  const last = fetched.at(-1);
  const onTop = live.filter(
    (visit) => !fetchedIds.has(visit._id) && !(morePages && last && isOlder(visit, last)),
  );
  return [...onTop, ...fetched];
}

/** Whether `visit` comes after `than` in the log's order (newest first, then by id). */
function isOlder(visit: Visit, than: Visit): boolean {
  const [at, thanAt] = [Date.parse(visit.createdAt), Date.parse(than.createdAt)];
  return at < thanAt || (at === thanAt && visit._id < than._id);
}

/**
 * Where a visitor came from: the referring host, 'Direct' when the request named none, and
 * 'Unknown' when what it named was no URL, or when the visit does not say (one cached or
 * answered before visits carried their referrer).
 */
function referrerText(referrer: Visit['referrer']): string {
  if (referrer === null) return 'Direct';
  if (referrer === undefined || referrer === UNKNOWN_REFERRER) return 'Unknown';
  return referrer;
}

/**
 * The campaign the visit's request named (its utm_source, utm_medium and utm_campaign, those
 * it had, joined by ' / '), or undefined when it named none.
 */
function campaignText(visit: Visit): string | undefined {
  const parts = [visit.utmSource, visit.utmMedium, visit.utmCampaign].filter(
    (part): part is string => typeof part === 'string' && part !== '',
  );
  return parts.length === 0 ? undefined : parts.join(' / ');
}

/** A host that may wrap after each of its dots, rather than anywhere, in a narrow column. */
function breakableHost(host: string): ReactNode {
  return host.split('.').map((label, index) => (
    <Fragment key={index}>
      {index > 0 && (
        <>
          .<wbr />
        </>
      )}
      {label}
    </Fragment>
  ));
}

function VisitItem({ visit }: { visit: Visit }) {
  const campaign = campaignText(visit);
  return (
    <li className={visit.bot ? 'visit visit--bot' : 'visit'}>
      <dl className="visit__fields">
        <div>
          <dt>Time</dt>
          <dd>
            <time dateTime={visit.createdAt}>{formatDateTime(visit.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Device</dt>
          <dd>{systemName(visit.userAgent.platform)}</dd>
        </div>
        <div>
          <dt>Browser</dt>
          <dd>{visit.userAgent.browser || 'Unknown'}</dd>
        </div>
        <div>
          <dt>IP address</dt>
          <dd className="visit__ip">{visit.ipAddress}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>{breakableHost(referrerText(visit.referrer))}</dd>
        </div>
        {campaign !== undefined && (
          <div className="visit__campaign">
            <dt>Campaign</dt>
            <dd>{campaign}</dd>
          </div>
        )}
      </dl>
      {/* As the stats and the CSV count it (a crawler, a link preview, a script); beside the
          fields, whose values stay what SPEC names them. */}
      {visit.bot && <span className="visit__bot">Bot</span>}
    </li>
  );
}
