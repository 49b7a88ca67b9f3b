import { MESSAGES } from '@shortener/contracts';
import { screen, within } from '@testing-library/preact';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../../../lib/format';
import { aLink, aUser, aVisit } from '../../../test/fixtures';
import { jsonResponse, mockFetch, signIn } from '../../../test/http';
import { renderApp, renderWithSession } from '../../../test/render';
import { VisitorList } from './visitor-list';

function openDetail() {
  signIn();
  localStorage.setItem('userData', JSON.stringify(aUser({ urls: [aLink({ urlID: 'Ab3dE5g' })] })));
  return renderApp('/profile/Ab3dE5g');
}

function visitorList() {
  return within(screen.getByRole('region', { name: 'Visitor log' }));
}

describe('Visitors of a link', () => {
  it("names systems as people write them: macOS, not 'Mac OS'", async () => {
    mockFetch(() =>
      jsonResponse(200, [aVisit('v1', { userAgent: { platform: 'Mac OS', browser: 'Safari' } })]),
    );
    openDetail();
    const item = await visitorList().findByRole('listitem');
    expect(item.textContent).toContain('macOS');
    expect(item.textContent).not.toContain('Mac OS');
  });

  it("shows where each visitor came from: the referring host, or 'Direct' when none", async () => {
    mockFetch(() =>
      jsonResponse(200, [
        aVisit('linked', { referrer: 'news.example.org' }),
        aVisit('typed', { referrer: null }),
        aVisit('odd', { referrer: '(unknown)' }),
      ]),
    );
    openDetail();
    const [linked, typed, odd] = await visitorList().findAllByRole('listitem');
    const from = (item: HTMLElement) => within(item).getByText('From').nextElementSibling;
    expect(from(linked!)?.textContent).toBe('news.example.org');
    expect(from(typed!)?.textContent).toBe('Direct');
    expect(from(odd!)?.textContent).toBe('Unknown');
  });

  it('shows the campaign a visit named (utm_source / utm_medium / utm_campaign), none without', async () => {
    mockFetch(() =>
      jsonResponse(200, [
        aVisit('tagged', { utmSource: 'news', utmMedium: 'email', utmCampaign: 'spring' }),
        aVisit('partly', { utmSource: 'news', utmMedium: null, utmCampaign: null }),
        aVisit('plain', { utmSource: null, utmMedium: null, utmCampaign: null }),
      ]),
    );
    openDetail();
    const [tagged, partly, plain] = await visitorList().findAllByRole('listitem');
    const campaign = (item: HTMLElement) =>
      within(item).queryByText('Campaign')?.nextElementSibling?.textContent;
    expect(campaign(tagged!)).toBe('news / email / spring');
    expect(campaign(partly!)).toBe('news');
    expect(campaign(plain!)).toBeUndefined();
  });

  it('still shows a visitors cache entry written before visits had a referrer', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, [aVisit('fetched')]));
    signIn();
    localStorage.setItem(
      'userData',
      JSON.stringify(aUser({ urls: [aLink({ urlID: 'Ab3dE5g' })] })),
    );
    localStorage.setItem(
      'visitors-Ab3dE5g',
      JSON.stringify({ visits: [aVisit('cached', { ipAddress: '192.0.2.44' })], nextCursor: null }),
    );
    renderApp('/profile/Ab3dE5g');
    const item = await visitorList().findByRole('listitem');
    expect(item.textContent).toContain('192.0.2.44');
    // Not known, rather than 'Direct': the old entry never said.
    expect(within(item).getByText('From').nextElementSibling?.textContent).toBe('Unknown');
    expect(fetchMock.mock.calls.some(([url]) => (url as string).startsWith('/api/visitors/'))).toBe(
      false,
    );
  });

  it("says 'Cannot reach the server' with Retry when no answer comes, and shows the visits by itself once back", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      let down = true;
      mockFetch((url) =>
        url.startsWith('/api/visitors/') && down
          ? Promise.reject(new TypeError('Failed to fetch'))
          : url.startsWith('/api/visitors/')
            ? jsonResponse(200, [aVisit('back', { ipAddress: '198.51.100.9' })])
            : jsonResponse(404, { message: 'x' }),
      );
      openDetail();
      expect(await visitorList().findByText(/^Cannot reach the server/)).toBeTruthy();
      expect(visitorList().getByRole('button', { name: 'Retry' })).toBeTruthy();

      down = false;
      await vi.advanceTimersByTimeAsync(5_000);
      expect((await visitorList().findByRole('listitem')).textContent).toContain('198.51.100.9');
      expect(visitorList().queryByText(/^Cannot reach the server/)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('marks the visits of bots, as the stats and the CSV count them', async () => {
    mockFetch(() =>
      jsonResponse(200, [
        aVisit('crawler', {
          userAgent: { platform: 'Unknown', browser: 'Googlebot' },
          ipAddress: '66.249.66.1',
          bot: true,
        }),
        aVisit('person', { ipAddress: '198.51.100.4', bot: false }),
      ]),
    );
    openDetail();
    const [crawler, person] = await visitorList().findAllByRole('listitem');
    expect(within(crawler!).getByText('Bot').className).toBe('visit__bot');
    expect(crawler!.textContent).toContain('Googlebot');
    expect(within(person!).queryByText('Bot')).toBeNull();
  });

  it("fetches the 'Visitors' count again with each refresh of the log, so the two agree", async () => {
    const user = userEvent.setup();
    localStorage.setItem('visitors-Ab3dE5g', JSON.stringify([aVisit('cached')]));
    const link = aLink({ urlID: 'Ab3dE5g', visitCount: 1 });
    const fetchMock = mockFetch((url) =>
      url === '/api/user'
        ? jsonResponse(200, aUser({ urls: [{ ...link, visitCount: 3 }] }))
        : jsonResponse(200, [aVisit('c'), aVisit('b'), aVisit('cached')]),
    );
    signIn();
    localStorage.setItem('userData', JSON.stringify(aUser({ urls: [link] })));
    renderApp('/profile/Ab3dE5g');
    const count = () =>
      screen.getByText('Visitors', { selector: 'dt' }).nextElementSibling?.textContent;
    expect(count()).toBe('1');
    // Neither the count nor the log asked for yet (the stats beside them fetch their own).
    const asked = () => fetchMock.mock.calls.map(([url]) => url as string);
    expect(
      asked().filter((url) => url === '/api/user' || url.startsWith('/api/visitors/')),
    ).toEqual([]);

    await user.click(visitorList().getByRole('button', { name: 'Refresh' }));
    await vi.waitFor(() => expect(visitorList().getAllByRole('listitem')).toHaveLength(3));
    await vi.waitFor(() => expect(count()).toBe('3'));
  });

  it('fetches them on first load and shows time stamp, device, browser and IP address', async () => {
    const visit = aVisit('v1', {
      userAgent: { platform: 'iOS', browser: 'Mobile Safari' },
      ipAddress: '198.51.100.4',
    });
    const fetchMock = mockFetch(() => jsonResponse(200, [visit]));
    openDetail();

    const item = await visitorList().findByRole('listitem');
    expect(item.textContent).toContain(formatDateTime(visit.createdAt));
    expect(item.textContent).toContain('iOS');
    expect(item.textContent).toContain('Mobile Safari');
    expect(item.textContent).toContain('198.51.100.4');
    // The stats beside the log fetch their own numbers, before or after it.
    expect(fetchMock.mock.calls.map(([url]) => url)).toContain('/api/visitors/Ab3dE5g');
    expect(JSON.parse(localStorage.getItem('visitors-Ab3dE5g') ?? 'null')).toEqual({
      visits: [visit],
      nextCursor: null,
    });
  });

  it('uses the cached visitors on first load when signed in, and refreshes on request', async () => {
    const user = userEvent.setup();
    localStorage.setItem('visitors-Ab3dE5g', JSON.stringify([aVisit('cached')]));
    const fetchMock = mockFetch(() => jsonResponse(200, [aVisit('new'), aVisit('cached')]));
    openDetail();

    expect(visitorList().getAllByRole('listitem')).toHaveLength(1);
    // Not the visitors (the stats beside them fetch their own numbers, sooner or later).
    expect(
      fetchMock.mock.calls
        .map(([url]) => url as string)
        .filter((url) => url.startsWith('/api/visitors/')),
    ).toEqual([]);

    await user.click(visitorList().getByRole('button', { name: 'Refresh' }));
    await vi.waitFor(() => expect(visitorList().getAllByRole('listitem')).toHaveLength(2));
  });

  it("shows 'No visitors found' with a refresh button, and clears the list and its cache on 'No visitors'", async () => {
    const user = userEvent.setup();
    localStorage.setItem('visitors-Ab3dE5g', JSON.stringify([aVisit('old')]));
    mockFetch(() => jsonResponse(404, { message: 'Not found' }));
    openDetail();

    await user.click(visitorList().getByRole('button', { name: 'Refresh' }));

    expect(await visitorList().findByText('No visitors found')).toBeTruthy();
    expect(visitorList().queryByRole('listitem')).toBeNull();
    expect(localStorage.getItem('visitors-Ab3dE5g')).toBeNull();
    expect(visitorList().getByRole('button', { name: 'Refresh' })).toBeTruthy();
  });

  it("offers 'Load more' while the server has a next page", async () => {
    const user = userEvent.setup();
    const fetchMock = mockFetch((url) =>
      url.endsWith('?cursor=page-2')
        ? jsonResponse(200, [aVisit('v1')])
        : jsonResponse(200, [aVisit('v3'), aVisit('v2')], { 'X-Next-Cursor': 'page-2' }),
    );
    openDetail();

    await user.click(await visitorList().findByRole('button', { name: 'Load more' }));

    await vi.waitFor(() => expect(visitorList().getAllByRole('listitem')).toHaveLength(3));
    // After the first page, the count is fetched again (/api/user), then the next page.
    expect(fetchMock.mock.calls.map(([url]) => url)).toContain(
      '/api/visitors/Ab3dE5g?cursor=page-2',
    );
    expect(visitorList().queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(JSON.parse(localStorage.getItem('visitors-Ab3dE5g') ?? 'null')).toEqual({
      visits: [aVisit('v3'), aVisit('v2'), aVisit('v1')],
      nextCursor: null,
    });
  });

  it("leaves a live visit older than the page shown to 'Load more', rather than on top of it", async () => {
    // Three visits stored while the page opened: the stream announced the newest and the oldest,
    // the server's first page holds the two newest.
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 29, 9, minute)).toISOString();
    const newest = aVisit('v3', { createdAt: at(3), ipAddress: '198.51.100.3' });
    const middle = aVisit('v2', { createdAt: at(2), ipAddress: '198.51.100.2' });
    const oldest = aVisit('v1', { createdAt: at(1), ipAddress: '198.51.100.1' });
    mockFetch((url) =>
      url.endsWith('?cursor=page-2')
        ? jsonResponse(200, [oldest])
        : jsonResponse(200, [newest, middle], { 'X-Next-Cursor': 'page-2' }),
    );
    signIn();
    renderWithSession(<VisitorList urlID="Ab3dE5g" live={[newest, oldest]} />);
    const addresses = () =>
      visitorList()
        .getAllByRole('listitem')
        .map((item) => within(item).getByText('IP address').nextElementSibling?.textContent);

    await vi.waitFor(() => expect(addresses()).toEqual(['198.51.100.3', '198.51.100.2']));
    await userEvent.setup().click(visitorList().getByRole('button', { name: 'Load more' }));
    await vi.waitFor(() =>
      expect(addresses()).toEqual(['198.51.100.3', '198.51.100.2', '198.51.100.1']),
    );
  });

  it("shows 'Server error' and keeps what is shown when a refresh fails", async () => {
    const user = userEvent.setup();
    localStorage.setItem('visitors-Ab3dE5g', JSON.stringify([aVisit('cached')]));
    mockFetch(() => jsonResponse(500, { message: 'Database down' }));
    openDetail();

    await user.click(visitorList().getByRole('button', { name: 'Refresh' }));

    expect((await visitorList().findByRole('alert')).textContent).toBe(MESSAGES.serverError);
    expect(visitorList().getAllByRole('listitem')).toHaveLength(1);
  });

  it('returns to the sign-in prompt on 401', async () => {
    mockFetch(() =>
      jsonResponse(401, { message: MESSAGES.unauthorized, callBack: '/login?from=%2Fprofile' }),
    );
    openDetail();

    expect(await screen.findByText('You must login first')).toBeTruthy();
    expect(localStorage.getItem('userData')).toBeNull();
  });
});
