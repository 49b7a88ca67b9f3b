import { MESSAGES, type LinkStats, type LiveVisit } from '@shortener/contracts';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { encode } from 'uqr';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { aLink, aUser, aVisit } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';
import { REFETCH_MIN_MS } from '../hooks/use-live-visits';
import { LIVE_RECOUNT_MS } from '../hooks/use-stats';
import { pngScale, QrCode, qrSvg } from './qr-code';
import { FakeEventSource } from '../../../test/event-source';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const link = aLink({ urlID: 'Ab3dE5g', visitCount: 5 });

/** jsdom's Blob has no text(): read it as the browser's FileReader would. */
function blobText(blob: Blob | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(new Error('unreadable'));
    reader.readAsText(blob ?? new Blob());
  });
}

function aStats(overrides: Partial<LinkStats> = {}): LinkStats {
  const to = Date.UTC(2026, 10, 24, 9, 30);
  const from = to - 7 * DAY;
  const first = Math.floor(from / DAY) * DAY;
  return {
    urlID: 'Ab3dE5g',
    range: '7d',
    from,
    to,
    interval: 'day',
    totals: { visits: 5, humans: 4, bots: 1, uniqueVisitors: 3 },
    series: Array.from({ length: 8 }, (_, index) => ({
      t: first + index * DAY,
      visits: index === 7 ? 5 : 0,
      humans: index === 7 ? 4 : 0,
      bots: index === 7 ? 1 : 0,
    })),
    browsers: [
      { name: 'Chrome', visits: 3 },
      { name: 'Firefox', visits: 2 },
    ],
    os: [{ name: 'Linux', visits: 5 }],
    devices: [
      { name: 'desktop', visits: 4 },
      { name: 'bot', visits: 1 },
    ],
    referrers: [
      { name: '(direct)', visits: 4 },
      { name: 'news.example', visits: 1 },
    ],
    countries: [
      { code: 'US', visits: 3 },
      { code: 'ZZ', visits: 2 },
    ],
    ...overrides,
  };
}

const liveVisit: LiveVisit = {
  _id: 'live-1',
  createdAt: new Date(Date.UTC(2026, 10, 24, 9, 45)).toISOString(),
  userAgent: { platform: 'Android', browser: 'Firefox' },
  ipAddress: '1.1.1.1',
  country: 'AU',
  device: 'mobile',
  bot: false,
};

function openDetail() {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser({ urls: [link] })));
  localStorage.setItem('visitors-Ab3dE5g', '[]');
  return renderApp('/profile/Ab3dE5g');
}

const stats = () => screen.getByRole('region', { name: 'Stats' });
const total = (term: string) =>
  within(stats()).getByText(term, { selector: 'dt' }).nextElementSibling?.textContent;
const list = (title: string) =>
  within(within(stats()).getByRole('region', { name: title }))
    .getAllByRole('listitem')
    .map((item) => item.textContent);
const callsTo = (fetchMock: ReturnType<typeof mockFetch>, prefix: string) =>
  fetchMock.mock.calls.map(([url]) => url as string).filter((url) => url.startsWith(prefix));
const statsCalls = (fetchMock: ReturnType<typeof mockFetch>) => callsTo(fetchMock, '/api/stats/');

/**
 * The server as it stands after `later` visits more than the page first saw (5): the stats,
 * the visitor log and the user's count all say so.
 */
function serverWith(later: () => number) {
  return mockFetch((url) => {
    const visits = 5 + later();
    if (url.startsWith('/api/stats/')) {
      return jsonResponse(
        200,
        aStats({ totals: { visits, humans: visits, bots: 0, uniqueVisitors: 3 } }),
      );
    }
    if (url.startsWith('/api/visitors/')) {
      return jsonResponse(
        200,
        Array.from({ length: visits }, (_, at) =>
          aVisit(`stored-${at}`, { ipAddress: `192.0.2.${at}` }),
        ),
      );
    }
    if (url === '/api/user')
      return jsonResponse(200, aUser({ urls: [{ ...link, visitCount: visits }] }));
    return jsonResponse(404, { message: 'unexpected' });
  });
}
/** The detail page with its stats shown and its live stream open. */
async function openLiveDetail() {
  openDetail();
  await within(await screen.findByRole('region', { name: 'Stats' })).findByText('Unique visitors');
  const [source] = FakeEventSource.instances;
  void act(() => source?.open());
  return source;
}
const visitorCount = () =>
  screen.getByText('Visitors', { selector: 'dt' }).nextElementSibling?.textContent;

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => vi.useRealTimers());

describe('pngScale', () => {
  it('makes the QR PNG at least 1024 px wide (print size), in whole pixels a module', () => {
    for (const size of [21, 25, 29, 33, 41, 57, 177]) {
      expect(size * pngScale(size)).toBeGreaterThanOrEqual(1024);
      expect(Number.isInteger(pngScale(size))).toBe(true);
    }
  });
});

describe('QrCode', () => {
  it('says the QR code could not be drawn when the link is too long to encode', async () => {
    // More than a QR code holds (2,331 bytes at error correction M).
    render(<QrCode urlID="Ab3dE5g" shortLink={`https://example.com/${'a'.repeat(3000)}`} />);
    expect(await screen.findByText('The QR code could not be drawn.')).toBeTruthy();
  });
});

describe('the Stats section of a link', () => {
  it('leads the page: right under the link card, above the visitor log', async () => {
    mockFetch(() => jsonResponse(200, aStats()));
    openDetail();
    // The first test here waits for the stats chunk's first import, slow on a loaded machine.
    const section = await screen.findByRole('region', { name: 'Stats' }, { timeout: 5_000 });
    const card = screen.getByRole('article');
    const log = screen.getByRole('region', { name: 'Visitor log' });
    expect(card.compareDocumentPosition(section) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(section.compareDocumentPosition(log) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('tells each total beside the period before it, and not for All', async () => {
    const user = userEvent.setup();
    mockFetch((url) =>
      jsonResponse(
        200,
        url.endsWith('range=all')
          ? aStats({ range: 'all' })
          : aStats({ previous: { from: 0, to: 1, visits: 4, humans: 4, bots: 0 } }),
      ),
    );
    openDetail();
    await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
      'Unique visitors',
    );
    const changes = () =>
      within(stats())
        .queryAllByText(/previous/)
        .map((element) => element.textContent);
    expect(changes()).toEqual([
      '+25% vs previous 7d',
      'same as previous 7d',
      'none in previous 7d',
    ]);
    expect(total('Visits')).toBe('5');

    await user.click(within(stats()).getByRole('button', { name: 'All' }));
    await waitFor(() => expect(changes()).toEqual([]));
  });

  it("says 'No visits yet' in one line for a link nobody visited: no tiles, lists or CSV", async () => {
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser({ urls: [{ ...link, visitCount: 0 }] })));
    localStorage.setItem('visitors-Ab3dE5g', '[]');
    const zero = { visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 };
    mockFetch(() =>
      jsonResponse(
        200,
        aStats({
          totals: zero,
          series: [],
          browsers: [],
          os: [],
          devices: [],
          referrers: [],
          countries: [],
        }),
      ),
    );
    renderApp('/profile/Ab3dE5g');
    const section = await screen.findByRole('region', { name: 'Stats' });
    expect(await within(section).findByText('No visits yet')).toBeTruthy();
    expect(within(section).queryByText('Unique visitors')).toBeNull();
    expect(within(section).queryByRole('button', { name: 'Download CSV' })).toBeNull();
    expect(within(section).queryByRole('group', { name: 'Range' })).toBeNull();
    expect(within(section).queryAllByRole('region')).toHaveLength(1); // the QR code alone
  });

  it("reads a bar's numbers out as the keyboard moves along the bars, and dates the axis", async () => {
    const user = userEvent.setup();
    const hour = Date.UTC(2026, 10, 24, 9);
    mockFetch((url) =>
      jsonResponse(
        200,
        url.endsWith('range=24h')
          ? aStats({
              range: '24h',
              interval: 'hour',
              series: [hour - 2 * HOUR, hour - HOUR, hour].map((t, index) => ({
                t,
                visits: index === 2 ? 5 : 0,
                humans: index === 2 ? 4 : 0,
                bots: index === 2 ? 1 : 0,
              })),
            })
          : aStats(),
      ),
    );
    openDetail();
    await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
      'Unique visitors',
    );
    // One Tab stop for all the bars: a slider whose value is the bar read out.
    const bars = within(stats()).getByRole('slider', { name: 'Bars' });
    const readout = () => stats().querySelector('.stats-chart__readout')?.textContent;
    expect(readout()).toBe('24/11: 4 people, 1 bot');
    expect(bars.getAttribute('aria-valuetext')).toBe('24/11: 4 people, 1 bot');
    expect(bars.getAttribute('aria-valuemax')).toBe('7');

    bars.focus();
    await user.keyboard('{Home}');
    expect(readout()).toBe('17/11: 0 people, 0 bots');
    await user.keyboard('{ArrowRight}');
    expect(readout()).toBe('18/11: 0 people, 0 bots');
    expect(bars.getAttribute('aria-valuetext')).toBe('18/11: 0 people, 0 bots');
    // The focus shows the tooltip too.
    expect(within(stats()).getByRole('tooltip').textContent).toBe('18/110 people0 bots');
    expect(stats().querySelector('.stats-chart__axis')?.textContent).toContain('24/11');

    // Another range starts again from its newest bar, not the one picked in the last.
    await user.click(within(stats()).getByRole('button', { name: '24h' }));
    await waitFor(() => expect(readout()).toBe('24/11 09:00: 4 people, 1 bot'));
  });

  it('shows the nearest bar in a tooltip where the pointer hovers, and follows a finger across the bars', async () => {
    // jsdom has neither pointer events nor layout: a PointerEvent as browsers have it, and
    // the bars 800 px wide.
    class FakePointerEvent extends MouseEvent {
      readonly pointerType: string;
      readonly pointerId: number;
      constructor(type: string, init: PointerEventInit = {}) {
        super(type, init);
        this.pointerType = init.pointerType ?? 'mouse';
        this.pointerId = init.pointerId ?? 1;
      }
    }
    vi.stubGlobal('PointerEvent', FakePointerEvent);
    // Nor the elements' `onpointer…` properties, by which Preact tells an event's name from
    // its prop's (without them it listens for 'PointerMove', which nothing sends).
    const handlers = ['down', 'move', 'up', 'cancel', 'leave'].map((type) => `onpointer${type}`);
    for (const handler of handlers) {
      Object.defineProperty(HTMLElement.prototype, handler, {
        value: null,
        writable: true,
        configurable: true,
      });
    }
    try {
      mockFetch(() => jsonResponse(200, aStats()));
      openDetail();
      await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
        'Unique visitors',
      );
      const bars = within(stats()).getByRole('slider', { name: 'Bars' });
      vi.spyOn(bars, 'getBoundingClientRect').mockReturnValue(new DOMRect(100, 0, 800, 160));
      const tooltip = () => within(stats()).queryByRole('tooltip');
      expect(tooltip()).toBeNull();

      // Eight bars over 800 px: the first near x 100-190, the last near 810-900.
      fireEvent.pointerMove(bars, { clientX: 120, pointerType: 'mouse' });
      expect(tooltip()?.textContent).toBe('17/110 people0 bots');
      fireEvent.pointerMove(bars, { clientX: 880, pointerType: 'mouse' });
      expect(tooltip()?.textContent).toBe('24/114 people1 bot');
      expect(bars.getAttribute('aria-describedby')).toBe(tooltip()?.id);
      fireEvent.pointerLeave(bars, { pointerType: 'mouse' });
      expect(tooltip()).toBeNull();

      // A finger: a touch picks a bar, a drag moves along, and the tooltip stays to be read.
      fireEvent.pointerMove(bars, { clientX: 500, pointerType: 'touch' });
      expect(tooltip()).toBeNull();
      fireEvent.pointerDown(bars, { clientX: 110, pointerType: 'touch' });
      expect(tooltip()?.textContent).toBe('17/110 people0 bots');
      fireEvent.pointerMove(bars, { clientX: 330, pointerType: 'touch' });
      expect(tooltip()?.textContent).toBe('19/110 people0 bots');
      fireEvent.pointerUp(bars, { clientX: 330, pointerType: 'touch' });
      expect(tooltip()?.textContent).toBe('19/110 people0 bots');
      expect(stats().querySelector('.stats-chart__readout')?.textContent).toBe(
        '19/11: 0 people, 0 bots',
      );
    } finally {
      vi.unstubAllGlobals();
      for (const handler of handlers) Reflect.deleteProperty(HTMLElement.prototype, handler);
    }
  });

  it('shows the totals, the chart and each top list, countries by name with their code', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, aStats()));
    openDetail();

    await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
      'Unique visitors',
    );
    expect(statsCalls(fetchMock)).toEqual(['/api/stats/Ab3dE5g?range=7d']);
    const [, init] = fetchMock.mock.calls[0] ?? [];
    expect(new Headers(init?.headers).get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(total('Visits')).toBe('5');
    expect(total('People')).toBe('4');
    expect(total('Bots')).toBe('1');
    expect(total('Unique visitors')).toBe('3');
    expect(list('Browsers')).toEqual(['Chrome3', 'Firefox2']);
    expect(list('OS')).toEqual(['Linux5']);
    expect(list('Devices')).toEqual(['Desktop4', 'Bot1']);
    expect(list('Referrers')).toEqual(['Direct4', 'news.example1']);
    expect(list('Countries')).toEqual(['United States (US)3', 'Unknown2']);

    const chart = within(stats()).getByRole('img', { name: /^Visits per day/ });
    expect(chart.getAttribute('aria-label')).toBe(
      'Visits per day: 4 by people and 1 by bots, at most 5 in one day',
    );
    expect(chart.querySelectorAll('g')).toHaveLength(8);
    expect(chart.querySelectorAll('.stats-chart__humans')).toHaveLength(1);
    expect(chart.querySelectorAll('.stats-chart__bots')).toHaveLength(1);
    expect(within(stats()).getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    // The spec's page stands above it, as it was.
    expect(screen.getByRole('heading', { level: 1 })).toBeTruthy();
    expect(screen.getByText('No visitors found')).toBeTruthy();
  });

  it('asks for the range chosen and shows its numbers', async () => {
    const user = userEvent.setup();
    const fetchMock = mockFetch((url) => {
      const range = new URL(url, 'http://localhost').searchParams.get('range');
      return range === '24h'
        ? jsonResponse(
            200,
            aStats({
              range: '24h',
              interval: 'hour',
              totals: { visits: 2, humans: 2, bots: 0, uniqueVisitors: 2 },
              series: [{ t: Date.UTC(2026, 10, 24, 9), visits: 2, humans: 2, bots: 0 }],
            }),
          )
        : jsonResponse(200, aStats());
    });
    openDetail();
    await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
      'Unique visitors',
    );

    await user.click(within(stats()).getByRole('button', { name: '24h' }));

    await waitFor(() => expect(total('Visits')).toBe('2'));
    expect(statsCalls(fetchMock)).toEqual([
      '/api/stats/Ab3dE5g?range=7d',
      '/api/stats/Ab3dE5g?range=24h',
    ]);
    expect(within(stats()).getByRole('button', { name: '24h' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(within(stats()).getByRole('button', { name: '7d' }).getAttribute('aria-pressed')).toBe(
      'false',
    );
    expect(
      within(stats())
        .getByRole('img', { name: /^Visits per/ })
        .getAttribute('aria-label'),
    ).toMatch(/^Visits per hour/);

    await user.click(within(stats()).getByRole('button', { name: 'All' }));
    await waitFor(() => expect(statsCalls(fetchMock).at(-1)).toBe('/api/stats/Ab3dE5g?range=all'));
  });

  it('adds a live visit to the counters, the chart, the lists, the visitor log and the count', async () => {
    mockFetch(() => jsonResponse(200, aStats()));
    openDetail();
    await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
      'Unique visitors',
    );
    const [source] = FakeEventSource.instances;
    expect(source?.url).toBe('/api/stats/Ab3dE5g/live');
    expect(within(stats()).getByRole('status').textContent).toBe('Connecting…');
    void act(() => source?.open());
    expect(within(stats()).getByRole('status').textContent).toBe('Live');

    void act(() => source?.send('visit', liveVisit));

    expect(total('Visits')).toBe('6');
    expect(total('People')).toBe('5');
    expect(total('Bots')).toBe('1');
    expect(list('Browsers')).toEqual(['Chrome3', 'Firefox3']);
    expect(list('Devices')).toEqual(['Desktop4', 'Bot1', 'Phone1']);
    expect(list('Countries')).toEqual(['United States (US)3', 'Unknown2', 'Australia (AU)1']);
    const lastBar = within(stats())
      .getByRole('img', { name: /^Visits per/ })
      .querySelectorAll('g')[7];
    expect(lastBar?.getAttribute('data-visits')).toBe('6');

    const log = screen.getByRole('region', { name: 'Visitor log' });
    expect(within(log).queryByText('No visitors found')).toBeNull();
    expect(within(log).getByText('1.1.1.1')).toBeTruthy();
    expect(screen.getByText('Visitors', { selector: 'dt' }).nextElementSibling?.textContent).toBe(
      '6',
    );

    // The same visit twice (a reconnect may repeat it) is in the log once.
    void act(() => source?.send('visit', { ...liveVisit, _id: 'live-2', ipAddress: '8.8.8.8' }));
    const rows = within(log).getAllByRole('listitem');
    expect(rows.map((row) => row.querySelector('.visit__ip')?.textContent)).toEqual([
      '8.8.8.8',
      '1.1.1.1',
    ]);
    // An event that is not a visit changes nothing.
    void act(() => source?.send('visit', { _id: 'broken' }));
    expect(total('Visits')).toBe('7');
  });

  it('counts unique visitors and referrers again once a burst of live visits has passed', async () => {
    // The page's first answer came before the visits were stored (seen in a browser journey:
    // 4 visits live, 0 unique visitors): only the server can tell who is new and from where.
    let stored = false;
    const fetchMock = mockFetch((url) =>
      url.startsWith('/api/stats/')
        ? jsonResponse(
            200,
            stored
              ? aStats({
                  totals: { visits: 7, humans: 6, bots: 1, uniqueVisitors: 4 },
                  referrers: [
                    { name: '(direct)', visits: 5 },
                    { name: 'news.example', visits: 2 },
                  ],
                })
              : aStats(),
          )
        : jsonResponse(404, { message: 'unexpected' }),
    );
    const source = await openLiveDetail();
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });

    stored = true;
    void act(() => source?.send('visit', liveVisit));
    void act(() => source?.send('visit', { ...liveVisit, _id: 'live-2' }));
    expect(total('Visits')).toBe('7');
    expect(total('Unique visitors')).toBe('3');
    expect(statsCalls(fetchMock)).toHaveLength(1);

    await act(async () => {
      await vi.advanceTimersByTimeAsync(LIVE_RECOUNT_MS);
    });
    await waitFor(() => expect(total('Unique visitors')).toBe('4'));
    expect(total('Visits')).toBe('7');
    expect(list('Referrers')).toEqual(['Direct5', 'news.example2']);
    // One fetch for the burst, and none while no visit comes.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3 * LIVE_RECOUNT_MS);
    });
    expect(statsCalls(fetchMock)).toHaveLength(2);

    // A fetch for another reason after a visit counts it: no recount after that one.
    void act(() => source?.send('visit', { ...liveVisit, _id: 'live-3' }));
    void act(() => source?.send('refetch', {}));
    await waitFor(() => expect(statsCalls(fetchMock)).toHaveLength(3));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2 * LIVE_RECOUNT_MS);
    });
    expect(statsCalls(fetchMock)).toHaveLength(3);
  });

  it('keeps the numbers undimmed while a recount is on its way, and dims them for a new range', async () => {
    // A recount (after live visits) refreshes what is shown; a range change replaces it.
    let answer: (() => void) | undefined;
    let recounting = false;
    mockFetch((url) =>
      url.includes('range=24h')
        ? new Promise((resolve) => {
            answer = () => resolve(jsonResponse(200, aStats({ range: '24h', interval: 'hour' })));
          })
        : url.startsWith('/api/stats/') && answer === undefined && recounting
          ? new Promise((resolve) => {
              answer = () => resolve(jsonResponse(200, aStats()));
            })
          : jsonResponse(200, aStats()),
    );
    const source = await openLiveDetail();
    const body = () => stats().querySelector('.stats__body');
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });

    recounting = true;
    void act(() => source?.send('visit', liveVisit));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(LIVE_RECOUNT_MS);
    });
    await waitFor(() => expect(answer).toBeDefined());
    expect(body()?.getAttribute('aria-busy')).toBe('false');
    await act(() => Promise.resolve(answer?.()));
    answer = undefined;
    recounting = false;
    vi.useRealTimers();

    await userEvent.setup().click(within(stats()).getByRole('button', { name: '24h' }));
    await waitFor(() => expect(answer).toBeDefined());
    expect(body()?.getAttribute('aria-busy')).toBe('true');
    await act(() => Promise.resolve(answer?.()));
    await waitFor(() => expect(body()?.getAttribute('aria-busy')).toBe('false'));
  });

  it('says when the stream is reconnecting, and stops when the session ends or the page is left', async () => {
    mockFetch(() => jsonResponse(200, aStats()));
    const { router } = openDetail();
    await within(await screen.findByRole('region', { name: 'Stats' })).findByText(
      'Unique visitors',
    );
    const [source] = FakeEventSource.instances;
    void act(() => source?.open());
    void act(() => source?.fail(FakeEventSource.CONNECTING));
    expect(within(stats()).getByRole('status').textContent).toBe('Reconnecting…');
    void act(() => source?.open());
    expect(within(stats()).getByRole('status').textContent).toBe('Live');
    void act(() => source?.send('end', {}));
    expect(within(stats()).getByRole('status').textContent).toBe('Not live');
    expect(source?.readyState).toBe(FakeEventSource.CLOSED);

    await act(() => router.navigate('/profile/Ab3dE5g?again'));
    const second = FakeEventSource.instances.at(-1);
    await act(() => router.navigate('/terms-of-nothing'));
    expect(second?.readyState).toBe(FakeEventSource.CLOSED);
  });

  it('fetches the stats, the visitor log and the count again when the stream says it left visits out', async () => {
    let later = 0;
    const fetchMock = serverWith(() => later);
    const source = await openLiveDetail();
    void act(() => source?.send('visit', liveVisit));
    expect(total('Visits')).toBe('6');
    expect(visitorCount()).toBe('6');
    expect(callsTo(fetchMock, '/api/visitors/')).toEqual([]);

    // 20 more were stored, of which the stream sent none.
    later = 20;
    void act(() => source?.send('refetch', {}));

    await waitFor(() => expect(total('Visits')).toBe('25'));
    expect(statsCalls(fetchMock)).toEqual([
      '/api/stats/Ab3dE5g?range=7d',
      '/api/stats/Ab3dE5g?range=7d',
    ]);
    await waitFor(() => expect(visitorCount()).toBe('25'));
    const log = screen.getByRole('region', { name: 'Visitor log' });
    await waitFor(() => expect(within(log).getByText('192.0.2.24')).toBeTruthy());
    // The live visit stays in the log, on top, and is not counted twice.
    expect(within(log).getByText('1.1.1.1')).toBeTruthy();
    expect(callsTo(fetchMock, '/api/visitors/')).toHaveLength(1);
    expect(callsTo(fetchMock, '/api/user')).toHaveLength(1);
    expect(within(stats()).getByRole('status').textContent).toBe('Live');
  });

  it('fetches again after the stream reconnects, at most once every few seconds', async () => {
    let later = 0;
    const fetchMock = serverWith(() => later);
    const source = await openLiveDetail();
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });

    // Cut (the gateway found it stalled): visits may have been missed meanwhile.
    later = 3;
    void act(() => source?.fail(FakeEventSource.CONNECTING));
    void act(() => source?.open());
    await waitFor(() => expect(total('Visits')).toBe('8'));
    expect(statsCalls(fetchMock)).toHaveLength(2);

    // Behind again at once: the refetch waits its turn, and comes.
    later = 4;
    void act(() => source?.send('refetch', {}));
    void act(() => source?.send('refetch', {}));
    expect(statsCalls(fetchMock)).toHaveLength(2);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(REFETCH_MIN_MS);
    });
    await waitFor(() => expect(total('Visits')).toBe('9'));
    expect(statsCalls(fetchMock)).toHaveLength(3);
  });

  it('forgets a link the stream says was deleted, elsewhere as well as here', async () => {
    // Asked for again once forgotten, the server has it no more.
    mockFetch((url) =>
      url.startsWith('/api/links?') ? jsonResponse(200, []) : jsonResponse(200, aStats()),
    );
    openDetail();
    await screen.findByRole('region', { name: 'Stats' });
    const [source] = FakeEventSource.instances;
    void act(() => source?.open());

    void act(() => source?.send('end', { reason: 'link deleted' }));

    expect(await screen.findByRole('heading', { name: MESSAGES.urlNotFound })).toBeTruthy();
    expect(source?.readyState).toBe(FakeEventSource.CLOSED);
    expect(localStorage.getItem('visitors-Ab3dE5g')).toBeNull();
    expect(localStorage.getItem('userData')).not.toContain('Ab3dE5g');
  });

  it('shows a failed stats call in the section, with a retry, and the rest of the page as it was', async () => {
    const user = userEvent.setup();
    let fail = true;
    const fetchMock = mockFetch(() =>
      fail ? jsonResponse(500, { message: 'boom' }) : jsonResponse(200, aStats()),
    );
    openDetail();

    const alert = await within(await screen.findByRole('region', { name: 'Stats' })).findByRole(
      'alert',
    );
    expect(alert.textContent).toContain(`Stats could not be loaded: ${MESSAGES.serverError}`);
    expect(screen.getByText('No visitors found')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();

    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(total('Visits')).toBe('5'));
    expect(statsCalls(fetchMock)).toHaveLength(2);
  });

  it('says the server cannot be reached, with Retry, when no answer comes', async () => {
    const user = userEvent.setup();
    let down = true;
    const fetchMock = mockFetch((url) =>
      down && url.includes('/api/stats/')
        ? Promise.reject(new TypeError('Failed to fetch'))
        : jsonResponse(200, aStats()),
    );
    openDetail();

    const alert = await within(await screen.findByRole('region', { name: 'Stats' })).findByRole(
      'alert',
    );
    expect(alert.textContent).toContain('Cannot reach the server');
    down = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(total('Visits')).toBe('5'));
    expect(statsCalls(fetchMock).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses an answer that is not the stats', async () => {
    mockFetch(() => jsonResponse(200, { ...aStats(), totals: { visits: 'many' } }));
    openDetail();
    const alert = await within(await screen.findByRole('region', { name: 'Stats' })).findByRole(
      'alert',
    );
    expect(alert.textContent).toContain(MESSAGES.serverError);
  });

  it("downloads the CSV with X-Requested-With, 'Preparing…' meanwhile, saved as a file", async () => {
    const user = userEvent.setup();
    let finish: (response: Response) => void = () => undefined;
    const fetchMock = mockFetch((url) =>
      url.endsWith('/visits.csv')
        ? new Promise<Response>((resolve) => (finish = resolve))
        : jsonResponse(200, aStats()),
    );
    const createObjectURL = vi.fn((blob: Blob) => {
      expect(blob.type).toBe('text/csv');
      return 'blob:visits';
    });
    const revokeObjectURL = vi.fn();
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL }));
    const clicked: { href: string; download: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push({ href: this.href, download: this.download });
    });
    openDetail();
    const button = await within(await screen.findByRole('region', { name: 'Stats' })).findByRole(
      'button',
      { name: 'Download CSV' },
    );

    await user.click(button);
    expect(button.textContent).toBe('Preparing…');
    expect(button.getAttribute('aria-busy')).toBe('true');
    const csvCall = fetchMock.mock.calls.find(([url]) => (url as string).endsWith('.csv'));
    expect(csvCall?.[0]).toBe('/api/stats/Ab3dE5g/visits.csv');
    expect(new Headers(csvCall?.[1]?.headers).get('X-Requested-With')).toBe('XMLHttpRequest');

    finish(
      new Response('time,ip,country,platform,browser,device,referrer,bot\n', {
        headers: { 'Content-Type': 'text/csv' },
      }),
    );
    await waitFor(() => expect(button.textContent).toBe('Download CSV'));
    expect(clicked).toEqual([{ href: 'blob:visits', download: 'visits-Ab3dE5g.csv' }]);
    expect(click).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(revokeObjectURL).toHaveBeenCalledWith('blob:visits'));
  });

  it('shows why the CSV could not be downloaded', async () => {
    const user = userEvent.setup();
    mockFetch((url) =>
      url.endsWith('/visits.csv')
        ? jsonResponse(503, { message: 'down' })
        : jsonResponse(200, aStats()),
    );
    openDetail();
    await user.click(
      await within(await screen.findByRole('region', { name: 'Stats' })).findByRole('button', {
        name: 'Download CSV',
      }),
    );
    const exportSection = within(stats()).getByRole('region', { name: 'Export' });
    expect((await within(exportSection).findByRole('alert')).textContent).toBe(
      `The CSV could not be downloaded: ${MESSAGES.serverError}`,
    );
  });

  it('draws a QR code of the short link, downloadable as SVG', async () => {
    const user = userEvent.setup();
    mockFetch(() => jsonResponse(200, aStats()));
    const saved: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => {
          saved.push(blob);
          return 'blob:qr';
        },
        revokeObjectURL: () => undefined,
      }),
    );
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    openDetail();
    const shortLink = `${window.location.origin}/r/Ab3dE5g`;

    const image = await within(await screen.findByRole('region', { name: 'Stats' })).findByRole(
      'img',
      { name: `QR code of ${shortLink}` },
    );
    const expected = qrSvg(encode(shortLink, { ecc: 'M', border: 4 }));
    expect(decodeURIComponent(image.getAttribute('src') ?? '')).toBe(
      `data:image/svg+xml;charset=utf-8,${expected}`,
    );
    await user.click(within(stats()).getByRole('button', { name: 'Download SVG' }));
    expect(saved).toHaveLength(1);
    expect(saved[0]?.type).toBe('image/svg+xml');
    expect(await blobText(saved[0])).toBe(expected);
    expect(within(stats()).getByRole('button', { name: 'Download PNG' })).toBeTruthy();
  });
});
