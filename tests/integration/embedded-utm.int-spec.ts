import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { STATS_FILTER_MESSAGES, type Visit } from '@shortener/contracts';
import { waitFor } from '@shortener/testkit';
import { signInLocally, startCopied, stop, type Browser, type Embedded } from './embedded-app';

// A short link's utm_source, utm_medium, utm_campaign in the embedded mode: one process,
// PGlite (the migration adding their columns runs on it), the in-process visit bus (which
// carries them in the visits' bytes).

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

describe('embedded mode: the campaign parameters of a visit', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-utm-'));
  let app: Embedded;
  let browser: Browser;

  const get = (route: string) => browser.fetch(`${app.url}${route}`, { headers: XHR });

  beforeAll(async () => {
    app = await startCopied(dataDir);
    browser = await signInLocally(app, 'Utm Tester');
  });

  afterAll(async () => {
    if (app) await stop(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores them, shows them in the visitor log and the CSV, and filters by them', async () => {
    const target = encodeURIComponent('https://example.com/embedded-utm');
    const created = await browser.fetch(`${app.url}/api/shorten/?url=${target}&days=30`, {
      method: 'POST',
      headers: XHR,
    });
    expect(created.status).toBe(201);
    const code = ((await created.json()) as { url: string }).url;
    for (const search of ['?utm_source=x&utm_medium=y&utm_campaign=z', '']) {
      const redirect = await fetch(`${app.url}/r/${code}${search}`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
    }
    const visits = await waitFor(
      async () => {
        const response = await get(`/api/visitors/${code}`);
        const page = response.status === 200 ? ((await response.json()) as Visit[]) : [];
        return page.length === 2 && page;
      },
      { what: 'both visits stored' },
    );
    expect(
      visits.map(({ utmSource, utmMedium, utmCampaign }) => [utmSource, utmMedium, utmCampaign]),
    ).toEqual([
      [null, null, null],
      ['x', 'y', 'z'],
    ]);

    const filtered = await get(`/api/visitors/${code}?utm_campaign=z`);
    expect(filtered.status).toBe(200);
    expect(((await filtered.json()) as Visit[]).map((visit) => visit.utmSource)).toEqual(['x']);
    const stats = await get(`/api/stats/${code}?range=24h&utm_source=x&utm_medium=y`);
    expect(stats.status).toBe(200);
    expect(((await stats.json()) as { totals: { visits: number } }).totals.visits).toBe(1);

    const csv = await (await get(`/api/stats/${code}/visits.csv?utm_source=x`)).text();
    const lines = csv.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.endsWith(',utm_source,utm_medium,utm_campaign')).toBe(true);
    expect(lines[1]!.endsWith(',x,y,z')).toBe(true);

    const bad = await get(`/api/stats/${code}?utm_medium=`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: STATS_FILTER_MESSAGES.utm_medium });
  });
});
