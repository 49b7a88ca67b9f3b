import { randomInt, randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { Client } from 'pg';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { UAParser } from 'ua-parser-js';
import { InternalClient, signInternalToken } from '@shortener/chassis';
import {
  DEVICES,
  INTERNAL_TOKEN_HEADER,
  SHORT_CODE_ALPHABET,
  STATS_RANGES,
  VISIT_EVENT_SCHEMA_VERSION,
  VISITS_TOPIC,
  internalApi,
  linkStatsSchema,
  type LinkStats,
  type VisitEvent,
} from '@shortener/contracts';
import {
  freePort,
  startServiceProcess,
  testServers,
  waitFor,
  type ServiceProcess,
} from '@shortener/testkit';

// The built analytics service on the real PostgreSQL and Kafka: visits with known
// User-Agents, addresses and referrers give exactly the expected statistics and CSV.

const SECRET = randomUUID().replace(/-/g, '');
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const SAFARI_IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
// A 10 KB User-Agent as the redirect service publishes it: its first 1,024 characters.
const HUGE_AGENT = 'x'.repeat(10 * 1024).slice(0, 1024);
const DAY = 86_400_000;

function newCode(): string {
  return Array.from({ length: 7 }, () => SHORT_CODE_ALPHABET[randomInt(62)]).join('');
}

/** ua-parser-js's names, which the stats report as they are; a bot it cannot name by its own. */
function named(userAgent: string): { browser: string; os: string } {
  const parser = new UAParser(userAgent);
  const bot = userAgent === GOOGLEBOT ? 'Googlebot' : 'Unknown';
  return { browser: parser.getBrowser().name ?? bot, os: parser.getOS().name ?? 'Unknown' };
}

function tally(values: string[]): Array<{ name: string; visits: number }> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([name, visits]) => ({ name, visits }));
}

describe('analytics stats', () => {
  let service: ServiceProcess;
  let client: InternalClient;
  let producer: Producer;
  const kafka = new Kafka({
    clientId: 'analytics-stats-test',
    brokers: testServers.kafkaBrokers,
    logLevel: logLevel.NOTHING,
  });

  const event = (urlID: string, overrides: Partial<VisitEvent>): VisitEvent => ({
    schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
    id: randomUUID(),
    urlID,
    timestamp: Date.now() - 1000,
    ip: '203.0.113.7',
    userAgent: CHROME_WINDOWS,
    referrer: null,
    ...overrides,
  });

  async function produce(events: VisitEvent[]): Promise<void> {
    await producer.send({
      topic: VISITS_TOPIC,
      messages: events.map((value) => ({ key: value.urlID, value: JSON.stringify(value) })),
    });
  }

  async function count(code: string): Promise<number> {
    const response = await client.call(internalApi.visitCounts, { body: { codes: [code] } });
    return response.body.counts[code] ?? -1;
  }

  /** The stats of a link; the query as written, so a bad one reaches the service. */
  async function stats(code: string, query: string): Promise<{ status: number; body: LinkStats }> {
    const response = await client.request('GET', `/internal/stats/${code}${query}`);
    if (response.status !== 200) return response as { status: number; body: LinkStats };
    return { status: 200, body: linkStatsSchema.parse(response.body) };
  }

  async function csv(code: string): Promise<Response> {
    const path = `/internal/visits/${code}/csv`;
    return fetch(`${service.url}${path}`, {
      headers: {
        [INTERNAL_TOKEN_HEADER]: signInternalToken(
          SECRET,
          { userId: null },
          { method: 'GET', path },
        ),
      },
    });
  }

  beforeAll(async () => {
    service = await startServiceProcess('analytics', await freePort(), {
      DATABASE_URL: testServers.databaseUrl,
      REDIS_URL: testServers.redisUrl,
      KAFKA_BROKERS: testServers.kafkaBrokers.join(','),
      KAFKA_CONSUMER_GROUP: 'analytics-stats-test',
      INTERNAL_API_SECRET: SECRET,
      TOMBSTONE_PURGE_INTERVAL_MS: '1000',
    });
    client = new InternalClient('analytics', service.url, SECRET);
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await waitFor(async () => (await fetch(`${service.url}/readyz`)).status === 200, {
      what: 'analytics ready',
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await producer?.disconnect();
    await service?.stop('SIGKILL');
  });

  it('counts visits, people, bots, unique visitors and each breakdown exactly', async () => {
    const code = newCode();
    const now = Date.now();
    const visits: VisitEvent[] = [
      event(code, { ip: '8.8.8.8', referrer: 'https://News.Example.org/story?x=1' }),
      event(code, { ip: '1.1.1.1', userAgent: SAFARI_IPHONE }),
      event(code, { ip: '8.8.8.8', userAgent: GOOGLEBOT }),
      // The same person as the first, the same day: one unique visitor.
      event(code, { ip: '8.8.8.8' }),
      event(code, {
        ip: '::ffff:193.0.14.129',
        userAgent: SAFARI_IPAD,
        referrer: '=1+2,"x"',
      }),
      event(code, { ip: '127.0.0.1', userAgent: '' }),
      event(code, { ip: '2001:4860:4860::8888', userAgent: HUGE_AGENT }),
      // Three days ago: in 7d and all, not in 24h.
      event(code, { ip: '193.0.14.129', timestamp: now - 3 * DAY }),
    ];
    await produce(visits);
    await waitFor(async () => (await count(code)) === visits.length, {
      what: `${visits.length} visits of ${code}`,
      timeoutMs: 30_000,
    });

    const day = await stats(code, '?range=24h');
    expect(day.status).toBe(200);
    const recent = visits.slice(0, 7);
    expect(day.body.totals).toEqual({ visits: 7, humans: 5, bots: 2, uniqueVisitors: 6 });
    expect(day.body.interval).toBe('hour');
    expect(day.body.series).toHaveLength(24);
    expect(day.body.series.reduce((sum, point) => sum + point.visits, 0)).toBe(7);
    expect(day.body.series.reduce((sum, point) => sum + point.bots, 0)).toBe(2);
    expect(day.body.devices).toEqual([
      { name: 'bot', visits: 2 },
      { name: 'desktop', visits: 2 },
      { name: 'mobile', visits: 1 },
      { name: 'other', visits: 1 },
      { name: 'tablet', visits: 1 },
    ]);
    expect(day.body.countries).toEqual([
      { code: 'US', visits: 4 },
      { code: 'AU', visits: 1 },
      { code: 'NL', visits: 1 },
      { code: 'ZZ', visits: 1 },
    ]);
    expect(day.body.referrers).toEqual([
      { name: '(direct)', visits: 5 },
      { name: '(unknown)', visits: 1 },
      { name: 'news.example.org', visits: 1 },
    ]);
    expect(day.body.browsers).toEqual(tally(recent.map((v) => named(v.userAgent).browser)));
    expect(day.body.os).toEqual(tally(recent.map((v) => named(v.userAgent).os)));

    const week = await stats(code, '');
    expect(week.body.range).toBe('7d');
    expect(week.body.interval).toBe('day');
    expect(week.body.series).toHaveLength(7);
    expect(week.body.totals).toEqual({ visits: 8, humans: 6, bots: 2, uniqueVisitors: 7 });
    expect(week.body.series.reduce((sum, point) => sum + point.humans, 0)).toBe(6);
    expect(week.body.countries).toContainEqual({ code: 'NL', visits: 2 });

    const all = await stats(code, `?range=all&createdAt=${now - 5 * DAY}`);
    expect(all.body.totals.visits).toBe(await count(code));
    expect(all.body.series).toHaveLength(6);
    expect(all.body.from).toBe(Math.floor((now - 5 * DAY) / DAY) * DAY);

    // A redelivery stores nothing and counts nothing.
    await produce([visits[0]!, visits[7]!]);
    const marker = event(code, { ip: '8.8.4.4' });
    await produce([marker]);
    await waitFor(async () => (await count(code)) === 9, { what: 'the marker visit' });
    const again = await stats(code, '?range=all');
    expect(again.body.totals).toEqual({ visits: 9, humans: 7, bots: 2, uniqueVisitors: 8 });
  });

  it('counts the period before each range beside it: none for all', async () => {
    const code = newCode();
    const now = Date.now();
    const visits: VisitEvent[] = [
      // Now: in every range.
      event(code, { ip: '8.8.8.8' }),
      // 25 hours ago: in the 24h before the last 24h, and in this week.
      event(code, { ip: '8.8.8.8', timestamp: now - 25 * 3_600_000 }),
      event(code, { ip: '1.1.1.1', userAgent: GOOGLEBOT, timestamp: now - 25 * 3_600_000 }),
      // Ten days ago: the week before this one; in this 30 days.
      event(code, { ip: '8.8.4.4', timestamp: now - 10 * DAY }),
      // Forty days ago: the 30 days before these.
      event(code, { ip: '8.8.4.4', timestamp: now - 40 * DAY }),
    ];
    await produce(visits);
    await waitFor(async () => (await count(code)) === visits.length, {
      what: `${visits.length} visits of ${code}`,
      timeoutMs: 30_000,
    });

    const day = (await stats(code, '?range=24h')).body;
    expect(day.totals.visits).toBe(1);
    expect(day.previous).toEqual({
      from: day.from - DAY,
      to: day.to - DAY,
      visits: 2,
      humans: 1,
      bots: 1,
    });
    const week = (await stats(code, '?range=7d')).body;
    expect(week.totals.visits).toBe(3);
    expect(week.previous).toMatchObject({ from: week.from - 7 * DAY, visits: 1, bots: 0 });
    const month = (await stats(code, '?range=30d')).body;
    expect(month.totals.visits).toBe(4);
    expect(month.previous).toMatchObject({ from: month.from - 30 * DAY, visits: 1 });
    expect((await stats(code, '?range=all')).body.previous).toBeUndefined();
  });

  it('adds up, filtered by each device, to the stats without a filter, in every range', async () => {
    const code = newCode();
    const now = Date.now();
    const hoursAgo = (hours: number) => now - hours * 3_600_000;
    const visits: VisitEvent[] = [
      event(code, { ip: '8.8.8.8', referrer: 'https://News.Example.org/story?x=1' }),
      event(code, { ip: '8.8.8.8', referrer: 'https://news.example.org/other' }),
      event(code, { ip: '1.1.1.1', userAgent: SAFARI_IPHONE, referrer: 'not a url' }),
      event(code, { ip: '8.8.4.4', userAgent: SAFARI_IPAD, timestamp: hoursAgo(2) }),
      event(code, { ip: '8.8.8.8', userAgent: GOOGLEBOT, timestamp: hoursAgo(25) }),
      event(code, { ip: '193.0.14.129', timestamp: hoursAgo(26) }),
      event(code, { ip: '1.1.1.1', userAgent: SAFARI_IPHONE, timestamp: now - 3 * DAY }),
      event(code, { ip: '127.0.0.1', userAgent: '', timestamp: now - 10 * DAY }),
      event(code, { ip: '8.8.8.8', timestamp: now - 40 * DAY }),
    ];
    await produce(visits);
    await waitFor(async () => (await count(code)) === visits.length, {
      what: `${visits.length} visits of ${code}`,
      timeoutMs: 30_000,
    });
    const add = (
      into: Map<string, number>,
      list: Array<{ name?: string; code?: string; visits: number }>,
    ) => {
      for (const entry of list) {
        const name = entry.name ?? entry.code ?? '';
        into.set(name, (into.get(name) ?? 0) + entry.visits);
      }
    };
    const listed = (list: Array<{ name?: string; code?: string; visits: number }>) => {
      const counts = new Map<string, number>();
      add(counts, list);
      return Object.fromEntries(counts);
    };
    for (const range of STATS_RANGES) {
      const createdAt = `&createdAt=${now - 41 * DAY}`;
      const whole = (await stats(code, `?range=${range}${createdAt}`)).body;
      const totals = { visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 };
      const previous = { visits: 0, humans: 0, bots: 0 };
      const series = whole.series.map((point) => ({ ...point, visits: 0, humans: 0, bots: 0 }));
      const lists = ['browsers', 'os', 'devices', 'referrers', 'countries'] as const;
      const merged = new Map(lists.map((list) => [list, new Map<string, number>()]));
      for (const device of DEVICES) {
        const part = await stats(code, `?range=${range}${createdAt}&device=${device}`);
        expect(part.status).toBe(200);
        const { body } = part;
        expect({ from: body.from, interval: body.interval }).toEqual({
          from: whole.from,
          interval: whole.interval,
        });
        for (const key of ['visits', 'humans', 'bots', 'uniqueVisitors'] as const) {
          totals[key] += body.totals[key];
        }
        for (const key of ['visits', 'humans', 'bots'] as const) {
          previous[key] += body.previous?.[key] ?? 0;
        }
        body.series.forEach((point, index) => {
          const sum = series[index]!;
          expect(point.t).toBe(sum.t);
          sum.visits += point.visits;
          sum.humans += point.humans;
          sum.bots += point.bots;
        });
        for (const list of lists) add(merged.get(list)!, body[list]);
      }
      expect({ range, totals }).toEqual({ range, totals: whole.totals });
      expect({ range, series }).toEqual({ range, series: whole.series });
      expect({ range, previous }).toEqual({
        range,
        previous: {
          visits: whole.previous?.visits ?? 0,
          humans: whole.previous?.humans ?? 0,
          bots: whole.previous?.bots ?? 0,
        },
      });
      for (const list of lists) {
        expect({ range, list, counts: Object.fromEntries(merged.get(list)!) }).toEqual({
          range,
          list,
          counts: listed(whole[list]),
        });
      }
    }
  });

  it('filters by the referrer as the stats list it, the log and the CSV too', async () => {
    const code = newCode();
    const now = Date.now();
    const visits: VisitEvent[] = [
      event(code, {
        ip: '8.8.8.8',
        referrer: 'https://News.Example.org/story?x=1',
        timestamp: now - 3000,
      }),
      event(code, {
        ip: '1.1.1.1',
        userAgent: SAFARI_IPHONE,
        referrer: 'https://news.example.org/',
        timestamp: now - 2000,
      }),
      event(code, { ip: '1.1.1.1', userAgent: SAFARI_IPHONE, referrer: 'not a url' }),
      event(code, { ip: '193.0.14.129', referrer: null }),
      // The previous 24 hours: a US visit from the same host.
      event(code, {
        ip: '8.8.4.4',
        referrer: 'https://news.example.org/old',
        timestamp: now - 25 * 3_600_000,
      }),
    ];
    await produce(visits);
    await waitFor(async () => (await count(code)) === visits.length, {
      what: `${visits.length} visits of ${code}`,
      timeoutMs: 30_000,
    });
    const news = (await stats(code, '?range=24h&referrer=news.example.org')).body;
    expect(news.totals).toEqual({ visits: 2, humans: 2, bots: 0, uniqueVisitors: 2 });
    expect(news.referrers).toEqual([{ name: 'news.example.org', visits: 2 }]);
    expect(news.previous).toMatchObject({ visits: 1 });
    const usNews = (await stats(code, '?range=24h&referrer=news.example.org&country=US')).body;
    expect(usNews.totals.visits).toBe(1);
    expect(usNews.previous).toMatchObject({ visits: 1 });
    const unknown = (await stats(code, '?range=7d&referrer=(unknown)')).body;
    expect(unknown.countries).toEqual([{ code: 'AU', visits: 1 }]);
    const direct = (await stats(code, '?range=7d&referrer=(direct)')).body;
    expect(direct.countries).toEqual([{ code: 'NL', visits: 1 }]);
    expect((await stats(code, '?range=7d&referrer=elsewhere.example')).body.totals.visits).toBe(0);

    const page = await client.call(internalApi.visitsPage, {
      params: { code },
      query: { referrer: 'news.example.org', os: 'iOS' },
    });
    expect(page.status).toBe(200);
    if (page.status !== 200) return;
    expect(page.body.visits.map((visit) => [visit.ipAddress, visit.referrer])).toEqual([
      ['1.1.1.1', 'news.example.org'],
    ]);
    const answer = await client.stream(internalApi.visitsCsv, {
      params: { code },
      query: { referrer: 'news.example.org' },
    });
    expect(answer.status).toBe(200);
    if (answer.status !== 200) return;
    const records = parse<Record<string, string>>(await new Response(answer.body).text(), {
      columns: true,
    });
    expect(records.map((record) => record['referrer'])).toEqual([
      'https://news.example.org/old',
      'https://News.Example.org/story?x=1',
      'https://news.example.org/',
    ]);
    const refused = await stats(code, '?country=usa');
    expect(refused.status).toBe(400);
  });

  it('exports every visit as CSV that a CSV parser reads back, formula-safe', async () => {
    const code = newCode();
    const visits = [
      event(code, {
        ip: '8.8.8.8',
        referrer: '=HYPERLINK("http://evil.example","x")',
        utmSource: '@SUM(1+1)',
        utmCampaign: 'spring, "sale"',
      }),
      event(code, { ip: '1.1.1.1', userAgent: GOOGLEBOT, referrer: 'https://a.example/,b' }),
    ];
    await produce(visits);
    await waitFor(async () => (await count(code)) === 2, { what: 'two visits' });
    const response = await csv(code);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const records = parse<Record<string, string>>(await response.text(), { columns: true });
    expect(records).toHaveLength(2);
    const byIp = new Map(records.map((record) => [record['ip'], record]));
    expect(byIp.get('8.8.8.8')).toEqual({
      time: new Date(visits[0]!.timestamp).toISOString(),
      ip: '8.8.8.8',
      country: 'US',
      platform: 'Windows',
      browser: 'Chrome',
      device: 'desktop',
      referrer: `'=HYPERLINK("http://evil.example","x")`,
      bot: 'false',
      utm_source: "'@SUM(1+1)",
      utm_medium: '',
      utm_campaign: 'spring, "sale"',
    });
    expect(byIp.get('1.1.1.1')).toMatchObject({
      country: 'AU',
      device: 'bot',
      referrer: 'https://a.example/,b',
      bot: 'true',
    });
  });

  it('exports no cell a spreadsheet would run, whatever its list separator (OWASP CSV-injection payloads)', async () => {
    const code = newCode();
    const payloads = ['=1+1', '+1+1', '-1+1', '@SUM(1+1)', '\t=1+1', '\r=1+1'];
    const referrers = ['', 'x,', 'x;'].flatMap((before) => payloads.map((p) => `${before}${p};`));
    await produce(referrers.map((referrer) => event(code, { referrer })));
    await waitFor(async () => (await count(code)) === referrers.length, { what: 'the visits' });
    const text = await (await csv(code)).text();
    // Every piece a spreadsheet could make a cell of: split at each comma, semicolon, tab or
    // line break, quoting ignored, without the quote and spaces a piece may start with.
    const cells = text.split(/[,;\t\r\n]/).map((piece) => piece.replace(/^[" ]+/, ''));
    expect(cells.filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
    // And each referrer still reads back whole, only apostrophes added.
    const records = parse<Record<string, string>>(text, { columns: true });
    expect(records.map((record) => record['referrer']!.replaceAll("'", '')).sort()).toEqual(
      [...referrers].sort(),
    );
  });

  it('streams the CSV through the client (what the gateway does)', async () => {
    const code = newCode();
    await produce([event(code, { ip: '8.8.8.8' })]);
    await waitFor(async () => (await count(code)) === 1, { what: 'one visit' });
    const answer = await client.stream(internalApi.visitsCsv, { params: { code } });
    expect(answer.status).toBe(200);
    if (answer.status !== 200) return;
    const text = await new Response(answer.body).text();
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(2);
    const refused = await client.stream(internalApi.visitsCsv, { params: { code: 'no!' } });
    expect(refused).toEqual({ status: 400, body: { message: 'Invalid short code' } });
  });

  it('answers a link with no visits with the header only, and bad input with 400', async () => {
    const empty = await csv(newCode());
    expect(await empty.text()).toBe(
      'time,ip,country,platform,browser,device,referrer,bot,utm_source,utm_medium,utm_campaign\r\n',
    );
    const nothing = await stats(newCode(), '?range=30d');
    expect(nothing.body.totals).toEqual({ visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 });
    expect(nothing.body.series).toHaveLength(30);
    expect(nothing.body.browsers).toEqual([]);
    expect((await stats(newCode(), '?range=1y')).status).toBe(400);
    expect((await stats('no!', '')).status).toBe(400);
    expect((await stats(newCode(), '?createdAt=yesterday')).status).toBe(400);
  });

  it("forgets a deleted link's rollups, breakdowns and visitors with its visits", async () => {
    const code = newCode();
    await produce([event(code, { ip: '8.8.8.8' }), event(code, { ip: '1.1.1.1' })]);
    await waitFor(async () => (await count(code)) === 2, { what: 'two visits' });
    const deleted = await client.call(internalApi.deleteVisits, { body: { codes: [code] } });
    expect(deleted.status).toBe(200);
    const after = await stats(code, '?range=all');
    expect(after.body.totals).toEqual({ visits: 0, humans: 0, bots: 0, uniqueVisitors: 0 });
    expect(after.body.countries).toEqual([]);
    expect(await (await csv(code)).text()).toBe(
      'time,ip,country,platform,browser,device,referrer,bot,utm_source,utm_medium,utm_campaign\r\n',
    );
  });

  it('drops hourly breakdowns past two days and visitor keys past a week, and nothing newer', async () => {
    const db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    try {
      const code = newCode();
      const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
      for (const hour of [hoursAgo(60), hoursAgo(30)]) {
        await db.query(
          `INSERT INTO analytics.visit_breakdown_hours (url_id, hour, dimension, value, visits)
           VALUES ($1, date_trunc('hour', $2::timestamptz), 'country', 'NL', 1)`,
          [code, hour],
        );
      }
      // Days no real visit uses: a key of 9 days ago goes, one of 3 days ago stays.
      const day = (daysAgo: number) =>
        new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
      await db.query(
        `INSERT INTO analytics.visitor_keys (day, key) VALUES ($1, $3), ($2, $3)
         ON CONFLICT (day) DO NOTHING`,
        [day(9), day(3), Buffer.alloc(32)],
      );
      await waitFor(
        async () => {
          const { rows } = await db.query<{ count: string }>(
            'SELECT count(*) FROM analytics.visit_breakdown_hours WHERE url_id = $1',
            [code],
          );
          return rows[0]?.count === '1';
        },
        { what: 'the old hourly breakdown purged', timeoutMs: 10_000 },
      );
      const { rows: keys } = await db.query<{ day: string }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM analytics.visitor_keys
         WHERE day = ANY($1::date[])`,
        [[day(9), day(3)]],
      );
      expect(keys.map((row) => row.day)).toEqual([day(3)]);
    } finally {
      await db.end();
    }
  });
});
