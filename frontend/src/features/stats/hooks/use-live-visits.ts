import { liveVisitSchema, type LiveVisit } from '@shortener/contracts/web-stats';
import { useEffect, useRef, useState } from 'react';

/**
 * connecting: not yet open; live: open; reconnecting: the stream broke and EventSource is
 * trying again; ended: the session ended (event `end`) or the server refused the stream.
 */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

/**
 * GET /api/stats/{urlID}/live as long as the component is mounted: each `visit` event,
 * checked against its contract, goes to `onVisit`. EventSource reconnects by itself (the
 * server asks for 2 s); the stream is closed when the page is left or the session ends.
 */
export function useLiveVisits(urlID: string, onVisit: (visit: LiveVisit) => void): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const latest = useRef(onVisit);
  useEffect(() => {
    latest.current = onVisit;
  }, [onVisit]);

  useEffect(() => {
    if (typeof EventSource === 'undefined') {
      setStatus('ended');
      return;
    }
    setStatus('connecting');
    const source = new EventSource(`/api/stats/${encodeURIComponent(urlID)}/live`);
    source.addEventListener('open', () => setStatus('live'));
    source.addEventListener('error', () => {
      // CONNECTING: EventSource tries again by itself; CLOSED: it gave up (e.g. a 401).
      setStatus(source.readyState === EventSource.CLOSED ? 'ended' : 'reconnecting');
    });
    source.addEventListener('visit', (event) => {
      let data: unknown;
      try {
        data = JSON.parse((event as MessageEvent<string>).data);
      } catch {
        return;
      }
      const parsed = liveVisitSchema.safeParse(data);
      if (parsed.success) latest.current(parsed.data);
    });
    source.addEventListener('end', () => {
      source.close();
      setStatus('ended');
    });
    return () => source.close();
  }, [urlID]);

  return status;
}
