// Account analytics benchmark (a measurement, not a test): one user with 20,000 links and
// 10,000,000 visits over 30 days, written straight into PostgreSQL in bulk (SQL, not Kafka):
// the visits, and from them the rollups ingest keeps (the account's; a link's for the one the
// `link` filter asks). Then GET /api/analytics through the gateway, signed in as that user,
// one call at a time: no filter (24h, 7d, 30d), one filter (country; link), two (country and
// device). Prints p50, p95 and max of each (goals: p95 <= 50 ms with no filter or one, <= 100
// ms with two) and the query plans (EXPLAIN ANALYZE) of the reads. The ingest ratio with the
// account rollups is bench/stats.mjs's (it tells the link's owner first).
//
// Measured 2026-11-29 (20,000 links, 10,000,000 visits, a quiet machine): no filter p50 10 /
// 27 / 26 ms, p95 19 / 32 / 30 ms (24h / 7d / 30d); link 30d p95 13 ms; country 503 (past the
// gateway's 3 s: it counts the owner's visits, 5.5 s of PostgreSQL); country and device 2.5 s.
//
//   npm run build && npm run infra:up -- --db shortener_test
//   node bench/account-analytics.mjs [--links 20000] [--visits 10000000] [--calls 50] [--keep]
//                                    [--only <text>]
//
// --keep signs in one named user and leaves what it seeded in place: a later run with --keep
// measures the same rows again without seeding them (ten minutes at 10 M visits). A run
// without it removes them. --only <text> makes only the calls whose name holds the text.
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startStack, testServers } from '../packages/testkit/dist/index.js';
import {
  createMonth,
  monthOf,
  addMonths,
} from '../services/analytics/dist/visits/visit-partitions.js';
import { whenReady } from './stack.mjs';

const { values: args } = parseArgs({
  options: {
    links: { type: 'string', default: '20000' },
    visits: { type: 'string', default: '10000000' },
    calls: { type: 'string', default: '50' },
    keep: { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const LINKS = Number(args.links);
const VISITS = Number(args.visits);
const CALLS = Number(args.calls);
const KEEP = args.keep;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const XHR = { 'X-Requested-With': 'XMLHttpRequest' };
const SLICE = 500_000;

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function signIn(origin, name) {
  const response = await fetch(`${origin}/auth/local`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ name, from: '/profile' }).toString(),
  });
  const cookies = response.headers.getSetCookie().map((line) => line.split(';')[0]);
  if (response.status !== 302 || cookies.length === 0) {
    throw new Error(`local sign-in answered ${response.status}: ${await response.text()}`);
  }
  return cookies.join('; ');
}

/** The owner id the links service stores for this session's user. */
async function ownerOf(origin, cookie, db) {
  const response = await fetch(
    `${origin}/api/shorten/?url=${encodeURIComponent('https://example.com/bench')}&days=60`,
    { method: 'POST', headers: { ...XHR, cookie } },
  );
  const { url } = await response.json();
  const { rows } = await db.query('SELECT owner_id FROM links.links WHERE code = $1', [url]);
  return rows[0].owner_id;
}

// A visit's dimensions from its number: five systems, five browsers (one a bot), four
// referrers (one none), ten countries, spread so that their combinations vary.
const VISIT_ROWS = `
  SELECT gen_random_uuid() AS id,
         ($1::text[])[1 + floor(power(random(), 3) * $4)::int] AS url_id,
         now() - random() * interval '30 days' AS created_at,
         '198.51.' || (g % 256) || '.' || (1 + (g / 256) % 250) AS ip_address,
         (ARRAY['Windows', 'macOS', 'iOS', 'Android', 'Linux'])[1 + g % 5] AS platform,
         (ARRAY['Chrome', 'Safari', 'Firefox', 'Edge', 'Googlebot'])[1 + (g / 5) % 5] AS browser,
         (ARRAY[NULL, 'https://news.example.org/a', 'https://social.example/p',
                'https://mail.example/x'])[1 + (g / 3) % 4] AS referrer,
         (g / 5) % 5 = 4 AS bot,
         CASE WHEN (g / 5) % 5 = 4 THEN 'bot' WHEN g % 5 IN (2, 3) THEN 'mobile'
              ELSE 'desktop' END AS device,
         (ARRAY['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'AU', 'CA', 'ZZ'])[1 + (g / 7) % 10]
           AS country,
         -- A third of the visits come from a campaign link.
         CASE WHEN g % 3 = 0 THEN (ARRAY['newsletter', 'social', 'ads'])[1 + (g / 11) % 3] END
           AS utm_source,
         CASE WHEN g % 3 = 0 THEN (ARRAY['email', 'cpc'])[1 + (g / 13) % 2] END AS utm_medium,
         CASE WHEN g % 6 = 0 THEN 'campaign-' || (g / 17) % 20 END AS utm_campaign
  FROM generate_series($2::bigint, $3::bigint) AS g`;

const REFERRER_HOST = `coalesce(substring(referrer FROM '^https?://([^/:]+)'), '(direct)')`;
const OWNED = 'url_id IN (SELECT url_id FROM analytics.link_owners WHERE owner_id = $1)';

/** The links (owned, told to analytics first so its links service adds nothing), the visits. */
async function seed(db, owner) {
  const codes = new Set();
  while (codes.size < LINKS) {
    codes.add(Array.from({ length: 8 }, () => ALPHABET[randomInt(62)]).join(''));
  }
  const list = [...codes];
  await db.query(
    `INSERT INTO analytics.link_owners (url_id, owner_id) SELECT unnest($1::text[]), $2`,
    [list, owner],
  );
  await db.query(
    `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
     SELECT code, 'https://example.com/articles/' || n, $1, now() - interval '31 days',
            now() + interval '60 days'
     FROM unnest($2::text[]) WITH ORDINALITY AS t(code, n)`,
    [owner, list],
  );
  const transact = async (work) => {
    await db.query('BEGIN');
    try {
      // As TypeORM's query: the rows.
      const result = await work({
        query: async (sql, values) => (await db.query(sql, values)).rows,
      });
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    }
  };
  const now = monthOf(Date.now());
  for (const month of [addMonths(now, -1), now]) await createMonth(transact, month);
  for (let start = 0; start < VISITS; start += SLICE) {
    const end = Math.min(VISITS, start + SLICE) - 1;
    await db.query(
      `INSERT INTO analytics.visits
         (id, url_id, created_at, ip_address, platform, browser, referrer, bot, device, country,
          utm_source, utm_medium, utm_campaign)
       ${VISIT_ROWS}`,
      [list, start, end, LINKS],
    );
    process.stdout.write(`  ${end + 1} visits\r`);
  }
  process.stdout.write('\n');
  return list;
}

/** The account's rollups (and the hottest link's), as ingest would have raised them. */
async function rollups(db, owner, link) {
  await db.query(
    `INSERT INTO analytics.account_hours (owner_id, hour, visits, humans, bots)
     SELECT $1::varchar, date_trunc('hour', created_at, 'UTC'), count(*),
            count(*) FILTER (WHERE NOT bot), count(*) FILTER (WHERE bot)
     FROM analytics.visits WHERE ${OWNED} GROUP BY 2`,
    [owner],
  );
  const dims = `(VALUES ('browser', browser), ('os', platform), ('device', device),
    ('referrer', ${REFERRER_HOST}), ('country', country::text), ('link', url_id::text),
    ('utm_source', utm_source), ('utm_medium', utm_medium), ('utm_campaign', utm_campaign))`;
  await db.query(
    `INSERT INTO analytics.account_breakdowns (owner_id, day, dimension, value, visits)
     SELECT $1::varchar, (created_at AT TIME ZONE 'UTC')::date, d.dimension, d.value, count(*)
     FROM analytics.visits CROSS JOIN LATERAL ${dims} AS d(dimension, value)
     WHERE ${OWNED} AND d.value IS NOT NULL GROUP BY 2, 3, 4`,
    [owner],
  );
  await db.query(
    `INSERT INTO analytics.account_breakdown_hours (owner_id, hour, dimension, value, visits)
     SELECT $1::varchar, date_trunc('hour', created_at, 'UTC'), d.dimension, d.value, count(*)
     FROM analytics.visits CROSS JOIN LATERAL ${dims} AS d(dimension, value)
     WHERE ${OWNED} AND d.value IS NOT NULL AND created_at >= now() - interval '2 days'
     GROUP BY 2, 3, 4`,
    [owner],
  );
  await db.query(
    `INSERT INTO analytics.account_visitor_days (owner_id, day, visitor, last_seen)
     SELECT $1::varchar, (created_at AT TIME ZONE 'UTC')::date,
            decode(md5(ip_address || platform || browser), 'hex'), max(created_at)
     FROM analytics.visits WHERE ${OWNED} GROUP BY 2, 3`,
    [owner],
  );
  await db.query(
    `INSERT INTO analytics.visit_hours (url_id, hour, visits, humans, bots)
     SELECT url_id, date_trunc('hour', created_at, 'UTC'), count(*),
            count(*) FILTER (WHERE NOT bot), count(*) FILTER (WHERE bot)
     FROM analytics.visits WHERE url_id = $1 GROUP BY 1, 2`,
    [link],
  );
  await db.query(
    `INSERT INTO analytics.visit_breakdowns (url_id, day, dimension, value, visits)
     SELECT url_id, (created_at AT TIME ZONE 'UTC')::date, d.dimension, d.value, count(*)
     FROM analytics.visits CROSS JOIN LATERAL (VALUES ('browser', browser), ('os', platform),
       ('device', device), ('referrer', ${REFERRER_HOST}), ('country', country::text),
       ('utm_source', utm_source), ('utm_medium', utm_medium), ('utm_campaign', utm_campaign))
       AS d(dimension, value)
     WHERE url_id = $1 AND d.value IS NOT NULL GROUP BY 1, 2, 3, 4`,
    [link],
  );
  await db.query(
    `INSERT INTO analytics.visitor_days (url_id, day, visitor, last_seen)
     SELECT url_id, (created_at AT TIME ZONE 'UTC')::date,
            decode(md5(ip_address || platform || browser), 'hex'), max(created_at)
     FROM analytics.visits WHERE url_id = $1 GROUP BY 1, 2, 3`,
    [link],
  );
  for (const table of [
    'visits',
    'link_owners',
    'account_hours',
    'account_breakdowns',
    'account_breakdown_hours',
    'account_visitor_days',
    'visit_hours',
    'visit_breakdowns',
  ]) {
    await db.query(`ANALYZE analytics.${table}`);
  }
}

/** What a --keep run left for this owner: its links and the hottest, or null (none yet). */
async function keptLinks(db, owner) {
  const { rows } = await db.query(
    `SELECT url_id, (SELECT count(*)::int FROM analytics.link_owners WHERE owner_id = $1) AS links
     FROM analytics.visit_hours
     WHERE url_id IN (SELECT url_id FROM analytics.link_owners WHERE owner_id = $1)
     GROUP BY 1 ORDER BY sum(visits) DESC LIMIT 1`,
    [owner],
  );
  return rows[0] ? { links: rows[0].links, hottest: rows[0].url_id } : null;
}

async function measure(name, url, cookie) {
  const times = [];
  let status = 0;
  let visits = 0;
  for (let i = 0; i < CALLS + 5; i += 1) {
    const began = process.hrtime.bigint();
    const response = await fetch(url, { headers: { ...XHR, cookie } });
    const body = await response.json();
    const ms = Number(process.hrtime.bigint() - began) / 1e6;
    status = response.status;
    visits = body.totals?.visits;
    // The first five warm the path (connections, JIT, caches) and are not counted.
    if (i >= 5) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return {
    call: name,
    status,
    visits,
    'p50 ms': Number(percentile(times, 50).toFixed(1)),
    'p95 ms': Number(percentile(times, 95).toFixed(1)),
    'max ms': Number(times[times.length - 1].toFixed(1)),
  };
}

async function explain(db, title, sql, values) {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, values);
  console.log(`\n${title}:`);
  for (const row of rows) console.log(`  ${row['QUERY PLAN']}`);
}

async function main() {
  const db = new pg.Client({ connectionString: testServers.databaseUrl });
  await db.connect();
  const stack = await startStack({
    services: ['gateway', 'links', 'analytics', 'auth'],
    env: { API_RATE_LIMIT: '1000000' },
    // A shared, loaded machine starts services slowly.
    healthTimeoutMs: 120_000,
    serviceEnv: { auth: { LOCAL_SIGN_IN: 'true' } },
  });
  let owner;
  try {
    await whenReady(stack, ['gateway', 'links', 'analytics', 'auth']);
    const cookie = await signIn(stack.url, KEEP ? 'Bench Account' : `Bench ${Date.now()}`);
    owner = await ownerOf(stack.url, cookie, db);
    const kept = KEEP ? await keptLinks(db, owner) : null;
    let link;
    if (kept) {
      console.log(`account analytics benchmark: the ${kept.links} links and visits kept before`);
      link = kept.hottest;
    } else {
      let began = Date.now();
      const codes = await seed(db, owner);
      console.log(
        `account analytics benchmark: ${LINKS} links, ${VISITS} visits over 30 days, seeded in ${Date.now() - began} ms`,
      );
      began = Date.now();
      // The hottest link (the distribution favours the first codes).
      link = codes[0];
      await rollups(db, owner, link);
      console.log(`rollups made in ${Date.now() - began} ms`);
    }

    const api = (query) => `${stack.url}/api/analytics?${query}`;
    const calls = [
      ['no filter, 24h', 'range=24h'],
      ['no filter, 7d', 'range=7d'],
      ['no filter, 30d', 'range=30d'],
      ['link, 30d', `range=30d&link=${link}`],
      ['country=US, 7d', 'range=7d&country=US'],
      ['country=US, 30d', 'range=30d&country=US'],
      ['country=US&device=mobile, 30d', 'range=30d&country=US&device=mobile'],
    ];
    const rows = [];
    for (const [name, query] of calls) {
      if (args.only === undefined || name.includes(args.only)) {
        rows.push(await measure(name, api(query), cookie));
      }
    }
    console.table(rows);
    console.log('goals: p95 <= 50 ms with no filter or one, <= 100 ms with two');

    const from = new Date(Date.now() - 30 * 86_400_000);
    const to = new Date();
    await explain(
      db,
      'no filter, 30d: the lists but the links (account_breakdowns)',
      `SELECT dimension, value, sum(visits) AS visits FROM analytics.account_breakdowns
       WHERE owner_id = $1 AND dimension <> 'link'
         AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
         AND day <= ($3::timestamptz AT TIME ZONE 'UTC')::date GROUP BY 1, 2`,
      [owner, from, to],
    );
    await explain(
      db,
      'no filter, 30d: the series (account_hours)',
      `SELECT date_trunc('day', hour, 'UTC') AS bucket, sum(visits), sum(humans), sum(bots)
       FROM analytics.account_hours WHERE owner_id = $1 AND hour >= $2 AND hour <= $3 GROUP BY 1`,
      [owner, from, to],
    );
    await explain(
      db,
      'no filter, 30d: unique visitors (account_visitor_counts)',
      `SELECT sum(visitors) FROM analytics.account_visitor_counts
       WHERE owner_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date`,
      [owner, from],
    );
    await explain(
      db,
      "no filter, 30d: the top links' current part (today's row of each link)",
      `SELECT value AS url_id, visits FROM analytics.account_breakdowns
       WHERE owner_id = $1 AND dimension = 'link' AND day = (now() AT TIME ZONE 'UTC')::date`,
      [owner],
    );
    await explain(
      db,
      "country=US, 30d: the lists (the owner's visits)",
      `SELECT d.dimension, d.value, count(*) FROM analytics.visits
       CROSS JOIN LATERAL (VALUES ('browser', browser), ('os', platform), ('device', device),
         ('referrer', referrer), ('country', country::text), ('link', url_id::text))
         AS d(dimension, value)
       WHERE ${OWNED} AND created_at >= $2 AND created_at < $3 AND country = 'US'
       GROUP BY 1, 2`,
      [owner, from, to],
    );
    await explain(
      db,
      "country=US&device=mobile, 30d: the series (the owner's visits)",
      `SELECT date_trunc('day', created_at, 'UTC'), count(*) FROM analytics.visits
       WHERE ${OWNED} AND created_at >= $2 AND created_at < $3 AND country = 'US'
         AND device = 'mobile' GROUP BY 1`,
      [owner, from, to],
    );
  } finally {
    if (owner !== undefined && !KEEP) {
      // The seeded rows go, so a later run (or test) starts from the same database.
      const codes = `SELECT url_id FROM analytics.link_owners WHERE owner_id = $1`;
      await db.query(`DELETE FROM analytics.visits WHERE url_id IN (${codes})`, [owner]);
      for (const table of [
        'visit_hours',
        'visit_breakdowns',
        'visit_breakdown_hours',
        'visitor_days',
      ]) {
        await db.query(`DELETE FROM analytics.${table} WHERE url_id IN (${codes})`, [owner]);
      }
      for (const table of [
        'account_hours',
        'account_breakdowns',
        'account_breakdown_hours',
        'account_visitor_days',
        'account_top_links',
        'account_top_links_built',
        'account_link_epochs',
        'link_owners',
      ]) {
        await db.query(`DELETE FROM analytics.${table} WHERE owner_id = $1`, [owner]);
      }
      await db.query('DELETE FROM links.links WHERE owner_id = $1', [owner]);
    }
    await stack.stop();
    await db.end();
  }
}

await main();
