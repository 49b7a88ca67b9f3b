import type { AccountStats } from '@shortener/contracts';
import { act, screen, waitFor, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aUser } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp } from '../../../test/render';
import { FakeEventSource } from '../../../test/event-source';
import { ANALYTICS_LIVE_RECOUNT_MS, ANALYTICS_REFRESH_MS } from '../hooks/use-analytics';

const DAY = 86_400_000;

function anAnswer(overrides: Partial<AccountStats> = {}): AccountStats {
  const to = Date.UTC(2026, 10, 24, 9, 30);
  const from = to - 7 * DAY;
  const first = Math.floor(from / DAY) * DAY;
  return {
    range: '7d',
    from,
    to,
    interval: 'day',
    totals: { visits: 12, humans: 10, bots: 2, uniqueVisitors: 7 },
    series: Array.from({ length: 8 }, (_, index) => ({
      t: first + index * DAY,
      visits: index === 7 ? 12 : 0,
      humans: index === 7 ? 10 : 0,
      bots: index === 7 ? 2 : 0,
    })),
    browsers: [
      { name: 'Chrome', visits: 8 },
      { name: 'Other', visits: 4 },
    ],
    os: [{ name: 'Mac OS', visits: 12 }],
    devices: [{ name: 'mobile', visits: 12 }],
    referrers: [{ name: '(direct)', visits: 12 }],
    countries: [
      { code: 'GB', visits: 9 },
      { code: 'US', visits: 3 },
    ],
    previous: { from: from - 7 * DAY, to: from, visits: 6, humans: 10, bots: 0 },
    links: [
      { urlID: 'Ab3dE5g', visits: 9 },
      { urlID: 'Zz9yY8x', visits: 3 },
    ],
    utmSources: [{ name: 'newsletter', visits: 5 }],
    utmMediums: [{ name: 'email', visits: 5 }],
    utmCampaigns: [{ name: 'spring sale', visits: 5 }],
    ...overrides,
  };
}

/** The analytics page at `path`, signed in, the API answering `answer`. */
function setup(
  path: string,
  answer: (url: string) => Response = () => jsonResponse(200, anAnswer()),
) {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser()));
  const fetchMock = mockFetch((url) =>
    url.startsWith('/api/analytics') ? answer(url) : jsonResponse(200, aUser()),
  );
  const rendered = renderApp(path);
  const calls = () =>
    fetchMock.mock.calls
      .map(([url]) => url as unknown as string)
      .filter((url) => url.startsWith('/api/analytics'));
  return { ...rendered, fetchMock, calls };
}

const list = (title: string) => screen.getByRole('region', { name: title });
const total = (term: string) =>
  [...screen.getByText(term, { selector: 'dt' }).parentElement!.querySelectorAll('dd')].map(
    (dd) => dd.textContent,
  );

/** The numbers are on the page (the first render fetches the page's chunk: slow on a busy machine). */
const shown = () => screen.findByText('Visits', { selector: 'dt' }, { timeout: 5000 });

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** A visit as the live stream sends it. */
const liveVisit = {
  _id: 'live-1',
  createdAt: '2026-11-24T09:31:00.000Z',
  userAgent: { platform: 'iOS', browser: 'Safari' },
  ipAddress: '1.1.1.1',
  country: 'AU',
  device: 'mobile',
  bot: false,
  referrer: null,
  utmSource: null,
  utmMedium: null,
  utmCampaign: null,
};

describe('the analytics page', () => {
  it('is linked from the top bar when signed in, and asks for the last 7 days', async () => {
    const { calls, router } = setup('/');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    await userEvent.click(within(nav).getByRole('link', { name: 'Analytics' }));
    expect(router.location.pathname).toBe('/analytics');
    expect(await screen.findByRole('heading', { level: 1, name: 'Analytics' })).toBeTruthy();
    await shown();
    expect(calls()).toEqual(['/api/analytics']);
    expect(document.title).toMatch(/^Analytics · /);
  });

  it('is not in the top bar signed out', () => {
    renderApp('/tc');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).queryByRole('link', { name: 'Analytics' })).toBeNull();
  });

  it('shows the totals against the previous period, the chart and every top list', async () => {
    setup('/analytics');
    await shown();
    expect(total('Visits')).toEqual(['12', '+100% vs previous 7d']);
    expect(total('People')).toEqual(['10', 'same as previous 7d']);
    expect(total('Bots')).toEqual(['2', 'none in previous 7d']);
    expect(total('Unique visitors')).toEqual(['7']);
    expect(
      screen.getByRole('img', { name: /^Visits per day: 10 by people and 2 by bots/ }),
    ).toBeTruthy();
    const entries = (title: string) =>
      within(list(title))
        .getAllByRole('listitem')
        .map((item) => item.textContent);
    expect(entries('Links')).toEqual(['Ab3dE5g9', 'Zz9yY8x3']);
    expect(entries('Countries')).toEqual(['United Kingdom (GB)9', 'United States (US)3']);
    expect(entries('Devices')).toEqual(['Phone12']);
    expect(entries('OS')).toEqual(['macOS12']);
    expect(entries('Referrers')).toEqual(['Direct12']);
    expect(entries('Browsers')).toEqual(['Chrome8', 'Other4']);
    expect(entries('UTM sources')).toEqual(['newsletter5']);
    expect(entries('UTM media')).toEqual(['email5']);
    expect(entries('UTM campaigns')).toEqual(['spring sale5']);
  });

  it('asks for the view its URL holds, under the API names', async () => {
    const { calls } = setup(
      '/analytics?country=GB&range=30d&utm_campaign=spring%20sale&domain=go.acme.example',
    );
    await shown();
    expect(calls()).toEqual([
      '/api/analytics?range=30d&domain=go.acme.example&country=GB&utm_campaign=spring%20sale',
    ]);
    expect(
      within(screen.getByRole('group', { name: 'Range' }))
        .getByRole('button', { name: '30d' })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    const chips = screen.getByRole('list', { name: 'Filters' });
    expect(
      within(chips)
        .getAllByRole('listitem')
        .map((chip) => chip.textContent),
    ).toEqual([
      'Domain: go.acme.example×',
      'Country: United Kingdom (GB)×',
      'UTM campaign: spring sale×',
    ]);
  });

  it('filters by an entry of any list, into the URL', async () => {
    const user = userEvent.setup();
    const { calls, router } = setup('/analytics?range=30d');
    await shown();

    await user.click(within(list('Countries')).getByRole('button', { name: /United Kingdom/ }));
    expect(router.location.search).toBe('?range=30d&country=GB');
    await user.click(within(list('Links')).getByRole('button', { name: /Ab3dE5g/ }));
    expect(router.location.search).toBe('?range=30d&link=Ab3dE5g&country=GB');
    await user.click(within(list('UTM media')).getByRole('button', { name: /email/ }));
    await waitFor(() =>
      expect(calls().at(-1)).toBe(
        '/api/analytics?range=30d&link=Ab3dE5g&country=GB&utm_medium=email',
      ),
    );
    const pressed = within(list('Countries')).getByRole('button', { name: /United Kingdom/ });
    expect(pressed.getAttribute('aria-pressed')).toBe('true');
    expect(
      within(list('Countries'))
        .getByRole('button', { name: /United States/ })
        .getAttribute('aria-pressed'),
    ).toBe('false');
  }, 20_000);

  it('removes a filter by its pressed entry, its chip, or all of them at once', async () => {
    const user = userEvent.setup();
    const { calls, router } = setup(
      '/analytics?range=30d&link=Ab3dE5g&country=GB&utm_medium=email',
    );
    await shown();

    await user.click(within(list('Countries')).getByRole('button', { name: /United Kingdom/ }));
    expect(router.location.search).toBe('?range=30d&link=Ab3dE5g&utm_medium=email');
    await user.click(screen.getByRole('button', { name: 'Remove filter Link: Ab3dE5g' }));
    expect(router.location.search).toBe('?range=30d&utm_medium=email');
    await waitFor(() => expect(calls().at(-1)).toBe('/api/analytics?range=30d&utm_medium=email'));
    expect(screen.queryByRole('button', { name: 'Clear filters' })).toBeNull();

    await act(() => router.navigate('/analytics?range=30d&os=iOS&device=mobile'));
    await user.click(await screen.findByRole('button', { name: 'Clear filters' }));
    expect(router.location.search).toBe('?range=30d');
    expect(screen.getByText('Select an entry of any list to filter by it.')).toBeTruthy();
  }, 20_000);

  it("does not filter by the summed 'Other'", async () => {
    setup('/analytics');
    await shown();
    expect(
      within(list('Browsers'))
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Chrome8']);
  });

  it('changes the range, keeping the filters', async () => {
    const user = userEvent.setup();
    const { router, calls } = setup('/analytics?device=mobile');
    await shown();
    await user.click(screen.getByRole('button', { name: 'All' }));
    expect(router.location.search).toBe('?range=all&device=mobile');
    await waitFor(() => expect(calls().at(-1)).toBe('/api/analytics?range=all&device=mobile'));
    await user.click(screen.getByRole('button', { name: '7d' }));
    expect(router.location.search).toBe('?device=mobile');
  });

  it('asks for a custom period of whole UTC days, and names the period before it', async () => {
    const user = userEvent.setup();
    const { router, calls } = setup('/analytics?country=GB', (url) =>
      jsonResponse(200, anAnswer(url.includes('from=') ? { range: 'custom' } : {})),
    );
    await shown();
    await user.click(screen.getByRole('button', { name: 'Custom' }));
    const form = screen.getByRole('form', { name: 'Custom range' });
    await user.click(within(form).getByRole('button', { name: 'Apply' }));
    expect(within(form).getByRole('alert').textContent).toBe(
      'Choose a first and a last day, the first not after the last.',
    );
    await user.type(within(form).getByLabelText('From'), '2026-11-01');
    await user.type(within(form).getByLabelText('To'), '2026-11-07');
    await user.click(within(form).getByRole('button', { name: 'Apply' }));
    expect(router.location.search).toBe('?from=2026-11-01&to=2026-11-07T23%3A59%3A59Z&country=GB');
    await waitFor(() =>
      expect(calls().at(-1)).toBe(
        '/api/analytics?from=2026-11-01&to=2026-11-07T23%3A59%3A59Z&country=GB',
      ),
    );
    await waitFor(() => expect(total('Visits')).toEqual(['12', '+100% vs previous period']));
    // Opened again from its URL, the form shows the period.
    expect(screen.getByRole('button', { name: 'Custom' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(screen.getByLabelText<HTMLInputElement>('From').value).toBe('2026-11-01');
    expect(screen.getByLabelText<HTMLInputElement>('To').value).toBe('2026-11-07');
  });

  it("says what the API refuses in the URL's query, and its chip takes it away", async () => {
    const user = userEvent.setup();
    const message = 'country must be two capital letters (ISO 3166-1 alpha-2; ZZ for unknown).';
    const { router } = setup('/analytics?country=gb', (url) =>
      url.includes('country=gb') ? jsonResponse(400, { message }) : jsonResponse(200, anAnswer()),
    );
    expect((await screen.findByRole('alert')).textContent).toContain(
      `Analytics could not be loaded: ${message}`,
    );
    await user.click(screen.getByRole('button', { name: 'Remove filter Country: gb' }));
    expect(router.location.search).toBe('');
    await shown();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("downloads the view's visits as CSV, its filters in the call, saved as a file", async () => {
    const user = userEvent.setup();
    const { fetchMock } = setup('/analytics?range=30d&country=GB', (url) =>
      url.startsWith('/api/analytics/visits.csv')
        ? new Response('link,time\n', { headers: { 'Content-Type': 'text/csv' } })
        : jsonResponse(200, anAnswer()),
    );
    vi.stubGlobal(
      'URL',
      Object.assign(URL, { createObjectURL: () => 'blob:analytics', revokeObjectURL: vi.fn() }),
    );
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this.download);
    });
    await shown();
    const exportSection = screen.getByRole('region', { name: 'Export' });
    expect(exportSection.textContent).toContain('Every visit in this view, as filtered');
    await user.click(within(exportSection).getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(clicked).toEqual(['analytics-visits.csv']));
    const call = fetchMock.mock.calls.find(([url]) =>
      (url as unknown as string).includes('visits.csv'),
    );
    expect(call?.[0]).toBe('/api/analytics/visits.csv?range=30d&country=GB');
    expect(new Headers(call?.[1]?.headers).get('X-Requested-With')).toBe('XMLHttpRequest');
  });

  it("says why the CSV could not be downloaded: the API's refusal of the view", async () => {
    const user = userEvent.setup();
    setup('/analytics?range=7d', (url) =>
      url.startsWith('/api/analytics/visits.csv')
        ? jsonResponse(400, { message: 'The country must be a code such as GB.' })
        : jsonResponse(200, anAnswer()),
    );
    await shown();
    const exportSection = screen.getByRole('region', { name: 'Export' });
    await user.click(within(exportSection).getByRole('button', { name: 'Download CSV' }));
    expect((await within(exportSection).findByRole('alert')).textContent).toBe(
      'The CSV could not be downloaded: The country must be a code such as GB.',
    );
  });

  it('says when nothing was visited in the period', async () => {
    setup('/analytics?os=iOS', () =>
      jsonResponse(
        200,
        anAnswer({
          totals: { visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 },
          browsers: [],
          os: [],
          devices: [],
          referrers: [],
          countries: [],
          links: [],
          utmSources: [],
          utmMediums: [],
          utmCampaigns: [],
        }),
      ),
    );
    expect(await screen.findByText('No visits in this period with these filters')).toBeTruthy();
    expect(within(list('Links')).getByText('No visits')).toBeTruthy();
  });

  it('counts again after live visits of its links, once a burst; polls only while the stream is not open', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    FakeEventSource.instances = [];
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let visits = 12;
    const { calls } = setup('/analytics?range=24h', () =>
      jsonResponse(
        200,
        anAnswer({ totals: { visits, humans: visits, bots: 0, uniqueVisitors: 1 } }),
      ),
    );
    await shown();
    const status = () => document.querySelector('.stats__live')?.textContent ?? '';
    expect(status()).toMatch(/^Connecting…/);
    const [source] = FakeEventSource.instances;
    expect(source?.url).toBe('/api/analytics/live');
    void act(() => source?.open());
    expect(status()).toMatch(/^Live/);

    visits = 14;
    void act(() => {
      source?.send('visit', liveVisit);
      source?.send('visit', { ...liveVisit, _id: 'live-2' });
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ANALYTICS_LIVE_RECOUNT_MS);
    });
    await waitFor(() => expect(total('Visits')[0]).toBe('14'));
    // While counting again, the numbers shown are not dimmed as a new view's would be.
    expect(document.querySelector('.stats__body')?.getAttribute('aria-busy')).toBe('false');
    // One count for the burst, and none while the stream is open and quiet.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ANALYTICS_REFRESH_MS * 2);
    });
    expect(calls()).toEqual(['/api/analytics?range=24h', '/api/analytics?range=24h']);

    // The stream broken: counted every ANALYTICS_REFRESH_MS while in sight instead.
    void act(() => source?.fail(FakeEventSource.CONNECTING));
    expect(status()).toMatch(/^Reconnecting…/);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ANALYTICS_REFRESH_MS);
    });
    await waitFor(() => expect(calls()).toHaveLength(3));
    // Out of sight: no more asking; back in sight, at once.
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ANALYTICS_REFRESH_MS * 2);
    });
    expect(calls()).toHaveLength(3);
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    void act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await waitFor(() => expect(calls()).toHaveLength(4));
  });
});
