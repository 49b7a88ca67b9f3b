import type { Visit } from '@shortener/contracts/web';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { IconButton } from '../../../components/icon-button';
import { RefreshIcon } from '../../../components/icons';
import { formatDateTime } from '../../../lib/format';
import { useVisitors } from '../hooks/use-visitors';
import './visitor-list.css';

/**
 * The visitors of one link, newest first, with refresh and 'Load more'. `live`: visits the
 * stats' live stream announced since the page opened (newest first), shown on top.
 */
export function VisitorList({ urlID, live = [] }: { urlID: string; live?: Visit[] }) {
  const state = useVisitors(urlID);
  const { nextCursor, status, refreshing, loadingMore, error, refresh, loadMore } = state;
  const visits = withLive(live, state.visits);
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

      {error && <ErrorMessage>{error}</ErrorMessage>}

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

function withLive(live: Visit[], fetched: Visit[]): Visit[] {
  if (live.length === 0) return fetched;
  const fetchedIds = new Set(fetched.map((visit) => visit._id));
  return [...live.filter((visit) => !fetchedIds.has(visit._id)), ...fetched];
}

function VisitItem({ visit }: { visit: Visit }) {
  return (
    <li className="visit">
      <dl className="visit__fields">
        <div>
          <dt>Time</dt>
          <dd>
            <time dateTime={visit.createdAt}>{formatDateTime(visit.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Device</dt>
          <dd>{visit.userAgent.platform || 'Unknown'}</dd>
        </div>
        <div>
          <dt>Browser</dt>
          <dd>{visit.userAgent.browser || 'Unknown'}</dd>
        </div>
        <div>
          <dt>IP address</dt>
          <dd className="visit__ip">{visit.ipAddress}</dd>
        </div>
      </dl>
    </li>
  );
}
