import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import {
  linkStatsSchema,
  STATS_FILTER_MAX,
  STATS_FILTER_MESSAGES,
  type LinkStats,
  type Visit,
} from '@shortener/contracts';
import { waitFor, type Stack } from '@shortener/testkit';
import { Browser } from './support/browser';
import { EventReader } from './support/event-reader';
import { signIn } from './support/sign-in';
import * as sample from './support/stats-visits';
import { startUsersStack, type UsersStack } from './support/users-stack';

// A short link's utm_source, utm_medium and utm_campaign, through the gateway on the whole
// stack (real PostgreSQL, Redis, Kafka): stored with each visit, shown in the visitor log, the
// CSV and the live stream, and filters of the stats, the visitor log and the CSV.

const run = randomUUID();
const USERS = {
  gina: { sub: `utm-gina-${run}`, name: 'Gina Utm', picture: '', email: 'g@example.com' },
};

/** The visits: [address, the short link's query string]. */
const VISITS: Array<[string, string]> = [
  ['8.8.8.8', '?utm_source=x&utm_medium=y&utm_campaign=z'],
  ['1.1.1.1', '?utm_source=x&utm_medium=email'],
  ['1.1.1.1', '?utm_source=news%20letter&utm_campaign=spring%0D%0Asale&other=1'],
  ['8.8.8.8', ''],
  ['10.1.2.3', `?utm_campaign=${'c'.repeat(300)}`],
];

describe('the campaign parameters of a visit (utm_source, utm_medium, utm_campaign)', () => {
  let started: UsersStack;
  let stack: Stack;
  let gina: Browser;
  let code: string;
  let stream: EventReader;

  const query = (filters: Record<string, string>) => new URLSearchParams(filters).toString();

  async function stats(filters: Record<string, string> = {}): Promise<LinkStats> {
    const response = await gina.api(
      `${stack.url}/api/stats/${code}?${query({ range: '24h', ...filters })}`,
    );
    expect(response.status).toBe(200);
    return linkStatsSchema.parse(await response.json());
  }

  async function visitors(filters: Record<string, string> = {}): Promise<Visit[]> {
    const response = await gina.api(`${stack.url}/api/visitors/${code}?${query(filters)}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Visit[];
  }

  async function csv(filters: Record<string, string> = {}): Promise<Array<Record<string, string>>> {
    const response = await gina.api(`${stack.url}/api/stats/${code}/visits.csv?${query(filters)}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.startsWith(`${sample.CSV_HEADER}\r\n`)).toBe(true);
    return parse<Record<string, string>>(text, { columns: true });
  }

  const campaign = ({ utmSource, utmMedium, utmCampaign }: Visit) => [
    utmSource,
    utmMedium,
    utmCampaign,
  ];

  beforeAll(async () => {
    started = await startUsersStack(USERS, {
      env: { TRUSTED_PROXIES: '127.0.0.0/8,::1', SIGN_IN_RATE_LIMIT: '1000' },
      serviceEnv: { gateway: { LIVE_HEARTBEAT_MS: '300' } },
    });
    ({ stack } = started);
    gina = new Browser({ 'x-forwarded-for': '198.18.9.7' });
    await signIn(gina, stack.url, 'gina');
    const target = new URLSearchParams({ url: `https://example.com/${randomUUID()}`, days: '30' });
    const shortened = await gina.api(`${stack.url}/api/shorten/?${target.toString()}`, {
      method: 'POST',
    });
    expect(shortened.status).toBe(201);
    code = ((await shortened.json()) as { url: string }).url;
    const opened = await gina.fetch(`${stack.url}/api/stats/${code}/live`, {
      headers: { 'sec-fetch-site': 'same-origin', accept: 'text/event-stream' },
    });
    expect(opened.status).toBe(200);
    stream = new EventReader(opened);
    for (const [ip, search] of VISITS) {
      const response = await fetch(`${stack.url}/r/${code}${search}`, {
        redirect: 'manual',
        headers: { 'user-agent': sample.CHROME_WINDOWS, 'x-forwarded-for': ip },
      });
      expect(response.status).toBe(302);
    }
    await waitFor(async () => (await stats()).totals.visits === VISITS.length, {
      what: 'the visits in the stats',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });

  afterAll(async () => {
    await stream?.close();
    await started?.stop();
  });

  const STORED = [
    ['x', 'y', 'z'],
    ['x', 'email', null],
    ['news letter', null, 'springsale'],
    [null, null, null],
    [null, null, 'c'.repeat(100)],
  ];

  it('stores them with each visit (bounded, control characters dropped) and shows them in the visitor log', async () => {
    const log = await visitors();
    // Newest first.
    expect(log.map(campaign)).toEqual([...STORED].reverse());
  });

  it('carries them in the CSV, oldest first', async () => {
    const rows = await csv();
    expect(rows.map((row) => [row['utm_source'], row['utm_medium'], row['utm_campaign']])).toEqual(
      STORED.map((fields) => fields.map((field) => field ?? '')),
    );
  });

  it('carries them in the live stream', async () => {
    await waitFor(() => stream.visits().length === VISITS.length, {
      what: 'every visit live',
      timeoutMs: 10_000,
    });
    const live = stream
      .visits()
      .map(({ utmSource, utmMedium, utmCampaign }) => [utmSource, utmMedium, utmCampaign]);
    expect(live).toEqual(STORED);
  });

  it('filters the stats, the visitor log and the CSV by each, combined with AND', async () => {
    expect((await stats({ utm_source: 'x' })).totals.visits).toBe(2);
    expect((await stats({ utm_source: 'x', utm_medium: 'y' })).totals.visits).toBe(1);
    expect((await stats({ utm_campaign: 'springsale' })).countries).toEqual([
      { code: 'AU', visits: 1 },
    ]);
    expect((await stats({ utm_medium: 'email', country: 'US' })).totals.visits).toBe(0);
    expect((await visitors({ utm_source: 'x' })).map(campaign)).toEqual([
      ['x', 'email', null],
      ['x', 'y', 'z'],
    ]);
    expect((await visitors({ utm_campaign: 'z' })).map((visit) => visit.ipAddress)).toEqual([
      '8.8.8.8',
    ]);
    const none = await gina.api(`${stack.url}/api/visitors/${code}?utm_source=nobody`);
    expect(none.status).toBe(404);
    expect((await csv({ utm_source: 'news letter' })).map((row) => row['ip'])).toEqual(['1.1.1.1']);
    expect(await csv({ utm_medium: 'y', utm_campaign: 'nothing' })).toEqual([]);
  });

  it('refuses a bad filter value with 400 naming it, on all three', async () => {
    const refused: Array<[string, string]> = [
      ['utm_source=', STATS_FILTER_MESSAGES.utm_source],
      [`utm_medium=${'m'.repeat(STATS_FILTER_MAX + 1)}`, STATS_FILTER_MESSAGES.utm_medium],
      ['utm_campaign=a%0Ab', STATS_FILTER_MESSAGES.utm_campaign],
      ['utm_source=a&utm_source=b', STATS_FILTER_MESSAGES.utm_source],
    ];
    for (const path of [`stats/${code}`, `visitors/${code}`, `stats/${code}/visits.csv`]) {
      for (const [search, message] of refused) {
        const response = await gina.api(`${stack.url}/api/${path}?${search}`);
        expect({ path, search, status: response.status }).toEqual({ path, search, status: 400 });
        expect(await response.json()).toEqual({ message });
      }
    }
    expect(STATS_FILTER_MESSAGES.utm_campaign.startsWith('utm_campaign ')).toBe(true);
  });
});
