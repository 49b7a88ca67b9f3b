import {
  LIVE_END_REASONS,
  LIVE_EVENTS,
  liveVisitSchema,
  statsApi,
  type LiveVisit,
} from '@shortener/contracts/web-stats';
import { useEffect, useRef, useState } from 'react';
import { routeUrl } from '../../../lib/api-route';

/**
 * connecting: not yet open; live: open; reconnecting: the stream broke (or the server
 * stopping ended it) and EventSource is trying again; ended: the session ended or the link
 * was deleted (event `end`), or the server refused the stream.
 */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

/** What a live indicator says of each status. */
export const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'Not live',
};

export interface LiveHandlers {
  /** Each `visit` event, checked against its contract. */
  onVisit: (visit: LiveVisit) => void;
  /**
   * Visits may have been missed: the server left some out (event `refetch`) or the stream
   * was reconnected. What is shown should be fetched again.
   */
  onRefetch?: () => void;
  /** The link was deleted (event `end`, from this page or anywhere else). */
  onLinkGone?: () => void;
}

/** At most one refetch this often: a stream that keeps falling behind asks again and again. */
export const REFETCH_MIN_MS = 5000;

/**
 * publicApi.getLiveVisits as long as the component is mounted. EventSource reconnects by
 * itself (the server asks for 2 s); the stream is closed when the page is left or the server
 * ends it.
 */
export function useLiveVisits(urlID: string, handlers: LiveHandlers): LiveStatus {
  return useLiveStream(routeUrl(statsApi.getLiveVisits, { params: { urlID } }), handlers);
}

/**
 * A stream of live visits at `url` (a link's, or the account's: publicApi.getAnalyticsLive),
 * read as useLiveVisits says.
 */
export function useLiveStream(url: string, handlers: LiveHandlers): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  }, [handlers]);

  useEffect(() => {
    if (typeof EventSource === 'undefined') {
      setStatus('ended');
      return;
    }
    setStatus('connecting');
    const source = new EventSource(url);
    let lastRefetch = -Infinity;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const refetch = (): void => {
      if (pending !== undefined) return;
      const run = (): void => {
        pending = undefined;
        lastRefetch = Date.now();
        latest.current.onRefetch?.();
      };
      const wait = lastRefetch + REFETCH_MIN_MS - Date.now();
      if (wait <= 0) run();
      else pending = setTimeout(run, wait);
    };
    let dropped = false;
    source.addEventListener('open', () => {
      setStatus('live');
      if (dropped) refetch();
      dropped = false;
    });
    source.addEventListener('error', () => {
      // CONNECTING: EventSource tries again by itself; CLOSED: it gave up (e.g. a 401).
      dropped = true;
      setStatus(source.readyState === EventSource.CLOSED ? 'ended' : 'reconnecting');
    });
    source.addEventListener(LIVE_EVENTS.visit, (event) => {
      const parsed = liveVisitSchema.safeParse(dataOf(event));
      if (parsed.success) latest.current.onVisit(parsed.data);
    });
    source.addEventListener(LIVE_EVENTS.refetch, refetch);
    source.addEventListener(LIVE_EVENTS.end, (event) => {
      const data = dataOf(event) as { reason?: unknown } | undefined;
      // The server instance is stopping: EventSource reconnects by itself, to another one.
      if (data?.reason === LIVE_END_REASONS.serverStopping) return;
      source.close();
      setStatus('ended');
      if (data?.reason === LIVE_END_REASONS.linkDeleted) latest.current.onLinkGone?.();
    });
    return () => {
      clearTimeout(pending);
      source.close();
    };
  }, [url]);

  return status;
}

function dataOf(event: Event): unknown {
  try {
    return JSON.parse((event as MessageEvent<string>).data) as unknown;
  } catch {
    return undefined;
  }
}
