// The 20,000-link user (a measurement, not a test): one user with 20,000 live links (and a
// visit count for each) written straight into PostgreSQL, then the first page through the
// gateway, signed in as that user, one call at a time: GET /api/user, GET /api/links, a
// search GET /api/links?q= (in the destination, most links matching, and in a code, one
// matching) and a deep page (the cursor after 10,000 links), once the stack has settled after
// its start. Prints p50, p95 and max of each (goal: p95 <= 30 ms for the first pages), the
// CPU each process took a call (PostgreSQL's: every backend of the machine's), and the query
// plans of the links service's listing (EXPLAIN ANALYZE).
//
// Pinned (taskset, if there): the stack's own processes (gateway, links, analytics, auth) on
// core 0, this script on core 1; PostgreSQL, Redis and whatever else the machine runs stay
// where they are (on a shared machine they are not ours to move).
//
//   npm run build && npm run infra:up -- --db shortener_test
//   node bench/link-pages.mjs [--links 20000] [--calls 200]
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startStack, testServers } from '../packages/testkit/dist/index.js';
import { cpuMeter } from './proc.mjs';
import { whenReady } from './stack.mjs';

const { values: args } = parseArgs({
  options: {
    links: { type: 'string', default: '20000' },
    calls: { type: 'string', default: '200' },
  },
});
const LINKS = Number(args.links);
const CALLS = Number(args.calls);
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Sets the CPU affinity of every thread of each process; quiet if taskset is missing. */
function pin(pids, cpus) {
  for (const pid of pids) {
    try {
      execFileSync('taskset', ['-a', '-c', '-p', cpus, String(pid)], { stdio: 'ignore' });
    } catch {
      return false;
    }
  }
  return true;
}

/** Signs in through the local sign-in form; answers the Cookie header of the session. */
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
  const { rows } = await db.query('DELETE FROM links.links WHERE code = $1 RETURNING owner_id', [
    url,
  ]);
  return rows[0].owner_id;
}

/** LINKS links a second apart, newest now, each with a visit count; answers their codes. */
async function seed(db, owner) {
  // Codes are unique whatever their case (links_code_folded_key), as the service makes them.
  const codes = new Map();
  while (codes.size < LINKS) {
    const code = Array.from({ length: 7 }, () => ALPHABET[randomInt(62)]).join('');
    codes.set(code.toLowerCase(), code);
  }
  const list = [...codes.values()];
  const chunk = 5000;
  for (let start = 0; start < LINKS; start += chunk) {
    const part = list.slice(start, start + chunk);
    await db.query(
      `INSERT INTO links.links (code, original_url, owner_id, created_at, expires_at)
       SELECT code, 'https://example.com/articles/' || n || '/some-title-' || (n % 97),
              $1, now() - n * interval '1 second', now() + interval '60 days'
       FROM unnest($2::text[]) WITH ORDINALITY AS t(code, n0), LATERAL (SELECT n0 + $3 AS n) AS x`,
      [owner, part, start],
    );
    await db.query(
      `INSERT INTO analytics.link_stats (url_id, visit_count)
       SELECT code, (n % 50) FROM unnest($1::text[]) WITH ORDINALITY AS t(code, n)`,
      [part],
    );
  }
  // Vacuumed as autovacuum would soon after a bulk insert (this PostgreSQL runs without it):
  // without the visibility map, counting the owner's links reads the heap (3.5-9 ms, not 1.9).
  await db.query('VACUUM ANALYZE links.links');
  await db.query('VACUUM ANALYZE analytics.link_stats');
  return list;
}

/** The stack's processes and PostgreSQL, for the CPU a call takes in each. */
let meterGroups = [];

async function measure(name, url, cookie) {
  const times = [];
  let stop;
  let status = 0;
  let count = 0;
  for (let i = 0; i < CALLS + 10; i += 1) {
    const began = process.hrtime.bigint();
    const response = await fetch(url, { headers: { ...XHR, cookie } });
    const body = await response.json();
    const ms = Number(process.hrtime.bigint() - began) / 1e6;
    status = response.status;
    count = Array.isArray(body) ? body.length : body.urls.length;
    // The first ten warm the path (connections, JIT) and are not counted.
    if (i >= 10) times.push(ms);
    if (i === 9) stop = cpuMeter(meterGroups);
  }
  const cpu = stop();
  times.sort((a, b) => a - b);
  const perCall = (seconds) => Number(((seconds * 1000) / CALLS).toFixed(1));
  return {
    call: name,
    status,
    links: count,
    'p50 ms': Number(percentile(times, 50).toFixed(1)),
    'p95 ms': Number(percentile(times, 95).toFixed(1)),
    'max ms': Number(times[times.length - 1].toFixed(1)),
    ...Object.fromEntries(
      Object.entries(cpu).map(([group, sec]) => [`${group} cpu`, perCall(sec)]),
    ),
  };
}

/**
 * Waits until the stack's processes take under a tenth of a core together over two seconds
 * (at most a minute); answers how long that took and what they took last.
 */
async function settled(groups) {
  const began = Date.now();
  for (;;) {
    const stop = cpuMeter(groups);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const busy = Object.values(stop()).reduce((sum, seconds) => sum + seconds, 0) / 2;
    if (busy <= 0.1 || Date.now() - began > 60_000) {
      return `${((Date.now() - began) / 1000).toFixed(0)} s (${(busy * 100).toFixed(0)}% of a core)`;
    }
  }
}

async function explain(db, owner, title, sql, values) {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, values);
  console.log(`\n${title}:`);
  for (const row of rows) console.log(`  ${row['QUERY PLAN']}`);
}

async function main() {
  const db = new pg.Client({ connectionString: testServers.databaseUrl });
  await db.connect();
  const stack = await startStack({
    services: ['gateway', 'links', 'analytics', 'auth'],
    // The API's rate limit is for clients, not for this one measuring it.
    env: { API_RATE_LIMIT: '1000000' },
    serviceEnv: { auth: { LOCAL_SIGN_IN: 'true' } },
  });
  try {
    await whenReady(stack, ['gateway', 'links', 'analytics', 'auth']);
    const cookie = await signIn(stack.url, `Bench ${Date.now()}`);
    const owner = await ownerOf(stack.url, cookie, db);
    const began = Date.now();
    const codes = await seed(db, owner);
    console.log(
      `link pages benchmark: ${LINKS} links of one user seeded in ${Date.now() - began} ms`,
    );

    const pids = ['gateway', 'links', 'analytics', 'auth'].flatMap((name) =>
      stack.all(name).map((instance) => instance.child.pid),
    );
    const pinned = pin(pids, '0') && pin([process.pid], '1');
    meterGroups = [
      ...['gateway', 'links', 'analytics', 'auth'].map((name) => {
        const own = new Set(stack.all(name).map((instance) => instance.child.pid));
        return [name, (proc) => own.has(proc.pid)];
      }),
      ['postgres', (proc) => proc.comm === 'postgres'],
    ];
    console.log(
      pinned
        ? 'pinned: gateway, links, analytics, auth on core 0; this script on core 1; PostgreSQL unpinned'
        : 'not pinned (no taskset)',
    );

    // The cursor after 10,000 links: the deep page a user reaches with "Load more" 100 times.
    let deep = null;
    for (let page = 0; page < Math.floor(LINKS / 2 / 100); page += 1) {
      const response = await fetch(
        `${stack.url}/api/links${deep ? `?cursor=${encodeURIComponent(deep)}` : ''}`,
        { headers: { ...XHR, cookie } },
      );
      deep = response.headers.get('x-next-cursor');
    }
    const code = codes[Math.floor(LINKS / 3)];
    // The seeded links' owners told to analytics (the owner_notices outbox, filled by the
    // inserts), as they were long ago for a user who made 20,000 links over time.
    const drained = Date.now();
    while ((await db.query('SELECT 1 FROM links.owner_notices LIMIT 1')).rows.length > 0) {
      if (Date.now() - drained > 120_000)
        throw new Error('the owner notices did not drain in 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(`owners told in ${((Date.now() - drained) / 1000).toFixed(1)} s`);
    // A service works for some seconds after it starts (its JIT, its first rounds): calls
    // measured then take turns with that on core 0. Measured once the stack is idle.
    console.log(`stack idle after ${await settled(meterGroups.slice(0, 4))}`);
    const results = [
      await measure('GET /api/user', `${stack.url}/api/user`, cookie),
      await measure('GET /api/links', `${stack.url}/api/links`, cookie),
      await measure(
        'GET /api/links?q=some-title-5 (many match)',
        `${stack.url}/api/links?q=some-title-5`,
        cookie,
      ),
      await measure(
        `GET /api/links?q=${code.toLowerCase()} (one matches)`,
        `${stack.url}/api/links?q=${code.toLowerCase()}`,
        cookie,
      ),
      await measure(
        'GET /api/links?q=no-such-text (none match)',
        `${stack.url}/api/links?q=no-such-text`,
        cookie,
      ),
      await measure(
        'GET /api/links?cursor= (after 10,000)',
        `${stack.url}/api/links?cursor=${encodeURIComponent(deep)}`,
        cookie,
      ),
    ];
    console.log(
      `\n${CALLS} sequential calls each, through the gateway (goal: p95 <= 30 ms for the first pages); ` +
        `load average ${loadavg()
          .map((load) => load.toFixed(1))
          .join(' ')} (others' work on the machine shows in the tail)`,
    );
    console.table(results);

    const select = `SELECT code, original_url, created_at, expires_at,
        (extract(epoch FROM created_at) * 1000000)::bigint AS created_micros
      FROM links.links WHERE owner_id = $1 AND expires_at > now()`;
    const order = 'ORDER BY created_at DESC, code DESC LIMIT 101';
    await explain(db, owner, 'first page', `${select} ${order}`, [owner]);
    await explain(
      db,
      owner,
      'a page after a cursor',
      `${select} AND (created_at, code) < (now() - interval '10000 seconds', 'zzzzzzz') ${order}`,
      [owner],
    );
    const search = (q) =>
      `${select} AND (strpos(lower(original_url), lower('${q}')) > 0 OR strpos(lower(code), lower('${q}')) > 0) ${order}`;
    await explain(db, owner, 'a search no link matches (every link read)', search('no-such-text'), [
      owner,
    ]);
  } finally {
    await stack.stop();
    await db.end();
  }
}

await main();
