import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { StoredVisits } from '@shortener/contracts';
import { sameOrigin, streamVisits } from './live-stream';
import type { LiveVisitFeed, StoredVisitsListener } from './live-visits';

class FakeResponse extends EventEmitter {
  status = 0;
  headers: Record<string, string> = {};
  written = '';
  ended = false;
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
}

function feed() {
  const listeners = new Map<string, Set<StoredVisitsListener>>();
  const value: LiveVisitFeed = {
    subscribe(urlID, listener) {
      const set = listeners.get(urlID) ?? new Set();
      set.add(listener);
      listeners.set(urlID, set);
      return () => set.delete(listener);
    },
  };
  return {
    value,
    emit: (batch: StoredVisits) => listeners.get(batch.urlID)?.forEach((l) => l(batch)),
    watching: (urlID: string) => listeners.get(urlID)?.size ?? 0,
  };
}

const visit = (id: string) => ({
  _id: id,
  createdAt: '2026-11-24T10:00:00.000Z',
  userAgent: { platform: 'Windows', browser: 'Chrome' },
  ipAddress: '203.0.113.9',
  country: 'ZZ',
  device: 'desktop' as const,
  bot: false,
});

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the live stream', () => {
  it("sends each stored visit of its link as an event, and no other link's", () => {
    const res = new FakeResponse();
    const visits = feed();
    streamVisits(res as unknown as ServerResponse, {
      urlID: 'AbC1234',
      feed: visits.value,
      sessionAlive: () => Promise.resolve(true),
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    visits.emit({ urlID: 'AbC1234', visits: [visit('a'), visit('b')] });
    visits.emit({ urlID: 'XyZ9876', visits: [visit('c')] });
    const events = res.written.split('\n\n').filter((block) => block.startsWith('event: visit'));
    expect(
      events.map((block) => (JSON.parse(block.split('data: ')[1]!) as { _id: string })._id),
    ).toEqual(['a', 'b']);
    res.emit('close');
    expect(visits.watching('AbC1234')).toBe(0);
  });

  it('beats, and ends the stream once the session has ended', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const res = new FakeResponse();
      const visits = feed();
      let alive = true;
      streamVisits(res as unknown as ServerResponse, {
        urlID: 'AbC1234',
        feed: visits.value,
        sessionAlive: () => Promise.resolve(alive),
        heartbeatMs: 1000,
      });
      jest.advanceTimersByTime(1000);
      await flush();
      expect(res.written).toContain(': heartbeat\n\n');
      expect(res.ended).toBe(false);
      alive = false;
      jest.advanceTimersByTime(1000);
      await flush();
      expect(res.written).toContain('event: end\n');
      expect(res.ended).toBe(true);
      expect(visits.watching('AbC1234')).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('the live stream at shutdown', () => {
  it('ends when the gateway stops taking requests, so closing the server waits for nothing', () => {
    const res = new FakeResponse();
    const visits = feed();
    const stopping = new AbortController();
    streamVisits(res as unknown as ServerResponse, {
      urlID: 'AbC1234',
      feed: visits.value,
      sessionAlive: () => Promise.resolve(true),
      stopping: stopping.signal,
    });
    expect(res.ended).toBe(false);
    stopping.abort();
    expect(res.ended).toBe(true);
    expect(visits.watching('AbC1234')).toBe(0);
  });
});

describe('sameOrigin', () => {
  const origin = 'http://localhost:8080';
  it('takes our own pages, and clients that name no site', () => {
    expect(sameOrigin({ 'sec-fetch-site': 'same-origin', origin }, origin)).toBe(true);
    expect(sameOrigin({}, origin)).toBe(true);
  });
  it('refuses another site, whichever header says so', () => {
    expect(sameOrigin({ 'sec-fetch-site': 'cross-site' }, origin)).toBe(false);
    expect(sameOrigin({ 'sec-fetch-site': 'same-site' }, origin)).toBe(false);
    expect(sameOrigin({ origin: 'https://evil.example' }, origin)).toBe(false);
    expect(
      sameOrigin({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:8081' }, origin),
    ).toBe(false);
  });
});
