// Stand-ins for the unit tests of the gateway's live streams.
import { EventEmitter } from 'node:events';
import type { LiveVisit, StoredVisits } from '@shortener/contracts';

type StoredVisitsListener = (batch: StoredVisits) => void;

/** Just what streamVisits uses of a ServerResponse, recorded. */
export class FakeResponse extends EventEmitter {
  status = 0;
  headers: Record<string, string> = {};
  written = '';
  ended = false;
  writableLength = 0;
  writeHead(status: number, headers: Record<string, string>) {
    this.status = status;
    this.headers = headers;
    return this;
  }
  write(chunk: string) {
    this.written += chunk;
    return true;
  }
  end() {
    this.ended = true;
  }
  destroy() {
    this.ended = true;
  }
}

/** A feed the test announces visits and removed links on. */
export function fakeFeed() {
  const listeners = new Map<string, Set<StoredVisitsListener>>();
  const removals: Array<(urlID: string) => void> = [];
  const value = {
    subscribe(urlID: string, listener: StoredVisitsListener) {
      const set = listeners.get(urlID) ?? new Set();
      set.add(listener);
      listeners.set(urlID, set);
      return () => set.delete(listener);
    },
    onLinkRemoved: (listener: (urlID: string) => void) => removals.push(listener),
  };
  return {
    value,
    emit: (batch: StoredVisits) => listeners.get(batch.urlID)?.forEach((l) => l(batch)),
    removed: (urlID: string) => removals.forEach((listener) => listener(urlID)),
    watching: (urlID: string) => listeners.get(urlID)?.size ?? 0,
  };
}

export const aLiveVisit = (id: string): LiveVisit => ({
  _id: id,
  createdAt: '2026-11-24T10:00:00.000Z',
  userAgent: { platform: 'Windows', browser: 'Chrome' },
  ipAddress: '203.0.113.9',
  country: 'ZZ',
  device: 'desktop',
  bot: false,
});
