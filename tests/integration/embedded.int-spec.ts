import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LINKS_QUERY_MESSAGES, NEXT_CURSOR_HEADER } from '@shortener/contracts';
import { freePort, REPO_ROOT, waitFor } from '@shortener/testkit';
import {
  launch,
  onEmbeddedDatabase,
  signInLocally,
  start,
  startCopied,
  stop,
} from './embedded-app';

// The embedded mode as a newcomer runs it: one process, embedded PostgreSQL in a data
// folder, no Redis, no Kafka. Started, used through the public origin, stopped, started
// again on the same folder.

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('embedded mode', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-'));
  const blocker = path.join(dataDir, 'a-file');
  writeFileSync(blocker, '');

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the whole product on one port and keeps its data across a restart', async () => {
    let app = await start(dataDir);
    try {
      const home = await fetch(`${app.url}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toMatch(/<div id="root"[ >]/);

      const anonymous = await fetch(
        `${app.url}/api/shorten/?url=${encodeURIComponent('https://example.com/kept')}&days=7`,
        { method: 'POST', headers: XHR },
      );
      const anonymousLink = (await anonymous.json()) as { url: string; loggedIn: boolean };
      expect(anonymousLink.loggedIn).toBe(false);
      const redirect = await fetch(`${app.url}/r/${anonymousLink.url}`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe('https://example.com/kept');

      const browser = await signInLocally(app, 'Embedded Tester');
      const shorten = async (target: string) => {
        const response = await browser.fetch(
          `${app.url}/api/shorten/?url=${encodeURIComponent(target)}&days=30`,
          { method: 'POST', headers: XHR },
        );
        return (await response.json()) as { url: string; loggedIn: boolean };
      };
      const visited = await shorten('https://example.com/visited');
      const kept = await shorten('https://example.com/still-here');
      expect(visited.loggedIn).toBe(true);
      // The live stream, over the in-process notices the host hands analytics and the gateway.
      const live = await browser.fetch(`${app.url}/api/stats/${visited.url}/live`, {
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      expect(live.status).toBe(200);
      const events = live.body!.getReader();
      let streamed = '';
      const liveVisit = (async () => {
        while (!streamed.includes('event: visit')) {
          const chunk: { done: boolean; value?: Uint8Array } = await events.read();
          if (chunk.done) break;
          streamed += new TextDecoder().decode(chunk.value);
        }
        return streamed;
      })();
      await fetch(`${app.url}/r/${visited.url}`, {
        redirect: 'manual',
        headers: { 'user-agent': CHROME },
      });
      expect(await liveVisit).toMatch(/event: visit\ndata: .*"country":"ZZ".*"device":"desktop"/);
      await events.cancel();

      const visitors = await waitFor(
        async () => {
          const response = await browser.fetch(`${app.url}/api/visitors/${visited.url}`, {
            headers: XHR,
          });
          return response.status === 200 ? ((await response.json()) as unknown[]) : undefined;
        },
        { what: 'the visit to be stored' },
      );
      expect(visitors).toEqual([
        expect.objectContaining({ userAgent: { platform: 'Windows', browser: 'Chrome' } }),
      ]);
      const stats = (await (
        await browser.fetch(`${app.url}/api/stats/${visited.url}?range=all`, { headers: XHR })
      ).json()) as { totals: { visits: number; humans: number; uniqueVisitors: number } };
      expect(stats.totals).toEqual({ visits: 1, humans: 1, bots: 0, uniqueVisitors: 1 });
      // The account's analytics: the links service tells the owner in process.
      const account = await waitFor(
        async () => {
          const response = await browser.fetch(`${app.url}/api/analytics?range=all`, {
            headers: XHR,
          });
          const body = (await response.json()) as {
            totals: { visits: number };
            links: Array<{ urlID: string; visits: number }>;
          };
          return body.totals?.visits === 1 ? body : undefined;
        },
        { what: "the visit in the account's analytics" },
      );
      expect(account.links).toEqual([{ urlID: visited.url, visits: 1 }]);
      const user = (await (
        await browser.fetch(`${app.url}/api/user`, { headers: XHR })
      ).json()) as {
        fullName: string;
        urls: { urlID: string; visitCount: number }[];
      };
      expect(user.fullName).toBe('Embedded Tester');
      expect(user.urls).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ urlID: visited.url, visitCount: 1 }),
          expect.objectContaining({ urlID: kept.url, visitCount: 0 }),
        ]),
      );

      const deleted = await browser.fetch(`${app.url}/api/delete/${visited.url}`, {
        method: 'POST',
        headers: XHR,
      });
      expect(await deleted.json()).toEqual({ loggedIn: true });
      expect((await fetch(`${app.url}/r/${visited.url}`, { redirect: 'manual' })).status).toBe(404);
      // Undo, edit and delete again, on the in-process cache as on Redis.
      const restored = await browser.fetch(`${app.url}/api/links/${visited.url}/restore`, {
        method: 'POST',
        headers: XHR,
      });
      expect(await restored.json()).toEqual(
        expect.objectContaining({ urlID: visited.url, visitCount: 1 }),
      );
      const edited = await browser.fetch(`${app.url}/api/links/${visited.url}`, {
        method: 'PATCH',
        headers: { ...XHR, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.org/edited' }),
      });
      expect(edited.status).toBe(200);
      expect(
        (
          await fetch(`${app.url}/r/${visited.url}`, { method: 'HEAD', redirect: 'manual' })
        ).headers.get('location'),
      ).toBe('https://example.org/edited');
      await browser.fetch(`${app.url}/api/delete/${visited.url}`, { method: 'POST', headers: XHR });
      expect((await fetch(`${app.url}/r/${visited.url}`, { redirect: 'manual' })).status).toBe(404);

      expect(await stop(app)).toBe(0);
      app = await start(dataDir);

      expect(
        (await fetch(`${app.url}/r/${anonymousLink.url}`, { redirect: 'manual' })).status,
      ).toBe(302);
      // The same spelling: another one is refused rather than taking the account over.
      const again = await signInLocally(app, 'Embedded Tester');
      const afterRestart = (await (
        await again.fetch(`${app.url}/api/user`, { headers: XHR })
      ).json()) as {
        urls: { urlID: string }[];
      };
      expect(afterRestart.urls.map((link) => link.urlID)).toEqual([kept.url]);
    } finally {
      await stop(app);
    }
  });

  it("pages and searches a user's links on its embedded PostgreSQL", async () => {
    const app = await startCopied(path.join(dataDir, 'pages'), {
      SHORTEN_RATE_LIMIT_SIGNED_IN: '1000',
    });
    try {
      const browser = await signInLocally(app, 'Paging Tester');
      const created: string[] = [];
      for (let i = 0; i < 105; i += 1) {
        const response = await browser.fetch(
          `${app.url}/api/shorten/?url=${encodeURIComponent(`https://example.com/page/${i}`)}&days=30`,
          { method: 'POST', headers: XHR },
        );
        expect(response.status).toBe(201);
        created.push(((await response.json()) as { url: string }).url);
      }
      const newestFirst = [...created].reverse();
      const first = await browser.fetch(`${app.url}/api/user`, { headers: XHR });
      const user = (await first.json()) as { urls: { urlID: string }[] };
      expect(user.urls.map((link) => link.urlID)).toEqual(newestFirst.slice(0, 100));
      const cursor = first.headers.get(NEXT_CURSOR_HEADER);
      expect(cursor).toEqual(expect.any(String));

      const next = await browser.fetch(
        `${app.url}/api/links?cursor=${encodeURIComponent(cursor!)}`,
        { headers: XHR },
      );
      expect(next.status).toBe(200);
      expect(next.headers.get(NEXT_CURSOR_HEADER)).toBeNull();
      const rest = (await next.json()) as { urlID: string }[];
      expect(rest.map((link) => link.urlID)).toEqual(newestFirst.slice(100));

      const found = await browser.fetch(`${app.url}/api/links?q=EXAMPLE.COM/PAGE/42`, {
        headers: XHR,
      });
      expect(((await found.json()) as { urlID: string }[]).map((link) => link.urlID)).toEqual([
        created[42],
      ]);
      const bad = await browser.fetch(`${app.url}/api/links?cursor=not-a-cursor`, {
        headers: XHR,
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ message: LINKS_QUERY_MESSAGES.cursor });
    } finally {
      await stop(app);
    }
    // A start and 105 shortens one after another: about 40 s on a loaded 2-core machine.
  }, 150_000);

  describe('its database, shared by every service', () => {
    // PGlite is one PostgreSQL session in the process; every service's pool has clients of
    // it, as they would have connections to a server (pglite-pool.ts).
    const shared = path.join(dataDir, 'shared');

    it("keeps each client's statements to itself when many query at once", async () => {
      const wrong = await onEmbeddedDatabase(
        shared,
        `const pools = [new Pool(), new Pool(), new Pool()];
        const answers = await Promise.all([0, 1, 2, 3, 4, 5].map(async (id) => {
          const client = await pools[id % 3].connect();
          const wrong = [];
          try {
            for (let i = 0; i < 40; i += 1) {
              try {
                if ((id + i) % 2 === 0) {
                  const { rows } = await client.query('SELECT $1::int * 2 AS v', [i]);
                  if (rows[0]?.v !== i * 2) wrong.push(id + '/' + i + ': ' + JSON.stringify(rows));
                } else {
                  const { rows } = await client.query('SELECT $1::text || $2::text AS v', ['c' + id, 'q' + i]);
                  if (rows[0]?.v !== 'c' + id + 'q' + i) wrong.push(id + '/' + i + ': ' + JSON.stringify(rows));
                }
              } catch (error) {
                wrong.push(id + '/' + i + ': ' + error.message);
              }
            }
          } finally {
            await client.release();
          }
          return wrong;
        }));
        return answers.flat();`,
      );
      expect(wrong).toEqual([]);
    }, 60_000);

    it('is left as it was by a client that goes away after a refused statement', async () => {
      const answer = await onEmbeddedDatabase(
        shared,
        `const pool = new Pool();
        const leaving = await pool.connect();
        const refused = await leaving.query('SELEC nonsense').then(() => 'ran', (error) => error.code);
        await leaving.release();
        const next = await pool.connect();
        const late = new Promise((resolve) => setTimeout(resolve, 5000, 'no answer'));
        const rows = await Promise.race([next.query('SELECT $1::int AS v', [7]).then((r) => r.rows), late]);
        await next.release();
        return { refused, rows };`,
      );
      expect(answer).toEqual({ refused: '42601', rows: [{ v: 7 }] });
    }, 60_000);

    it('lets a transaction finish before anyone else reads, and rolls back one whose client went away', async () => {
      const counts = await onEmbeddedDatabase(
        shared,
        `const pool = new Pool();
        const connect = () => pool.connect();
        const setup = await connect();
        await setup.query('CREATE TABLE IF NOT EXISTS gate_scratch (n int)');
        await setup.query('TRUNCATE gate_scratch');

        const writer = await connect();
        const reader = await new Pool().connect();
        await writer.query('BEGIN');
        await writer.query('INSERT INTO gate_scratch VALUES (1)');
        // The reader waits for the writer's transaction, then sees what it committed.
        const read = reader.query('SELECT count(*) FROM gate_scratch');
        await writer.query('INSERT INTO gate_scratch VALUES (2)');
        await writer.query('COMMIT');
        const committed = (await read).rows[0]?.count;

        // A client that goes away inside its transaction: what it wrote is rolled back, and
        // the others are not kept waiting.
        const leaving = await connect();
        await leaving.query('BEGIN');
        await leaving.query('INSERT INTO gate_scratch VALUES (3)');
        leaving.release();
        const after = (await reader.query('SELECT count(*) FROM gate_scratch')).rows[0]?.count;
        return { committed, after };`,
      );
      expect(counts).toEqual({ committed: '2', after: '2' });
    }, 60_000);
  });

  it.each([
    // A folder inside a regular file can never be made.
    [
      'an unwritable data folder',
      () => ({ DATA_DIR: path.join(blocker, 'data') }),
      'cannot be written',
    ],
    [
      'production without Google credentials',
      () => ({ NODE_ENV: 'production' }),
      'NODE_ENV=production needs Google sign-in',
    ],
    [
      'a configured Redis that does not answer',
      () => ({ REDIS_URL: 'redis://127.0.0.1:1' }),
      'REDIS_URL is set but 127.0.0.1:1 does not answer',
    ],
  ])('refuses to start with %s, saying what to fix', async (_name, extra, message) => {
    const app = launch({
      PORT: String(await freePort()),
      DATA_DIR: path.join(dataDir, 'x'),
      ...extra(),
    });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain(message);
    expect(app.output()).not.toContain('    at ');
  });

  it('opens a database folder of an earlier version as it was, with a 4 MB buffer cache set at start', async () => {
    // A folder as the versions before made it: PGlite's own settings (128 MB of buffers).
    const earlier = path.join(dataDir, 'earlier');
    const folder = path.join(earlier, 'postgres');
    mkdirSync(folder, { recursive: true });
    // In a Node process of its own: PGlite loads its WebAssembly with import(), which Jest's
    // module system does not offer.
    execFileSync(
      process.execPath,
      [
        '-e',
        `const { PGlite } = require('@electric-sql/pglite');
        PGlite.create(process.argv[1]).then(async (db) => {
          await db.exec("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')");
          await db.close();
        });`,
        folder,
      ],
      { cwd: REPO_ROOT, stdio: 'inherit' },
    );
    const conf = readFileSync(path.join(folder, 'postgresql.conf'), 'utf8');

    const app = await start(earlier);
    expect(await stop(app)).toBe(0);
    // Opened as the embedded mode opens it (PGlite zeroes its buffer cache at start: 128 MB
    // resident, used or not).
    expect(
      await onEmbeddedDatabase(
        earlier,
        `const pool = new Pool();
        return [
          (await pool.query('SHOW shared_buffers')).rows,
          (await pool.query('SELECT note FROM kept')).rows,
        ];`,
      ),
    ).toEqual([[{ shared_buffers: '4MB' }], [{ note: 'still here' }]]);
    // Set at start only: the folder's own configuration is as it was.
    expect(readFileSync(path.join(folder, 'postgresql.conf'), 'utf8')).toBe(conf);
  }, 300_000);

  it('says so when its port is taken', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '0.0.0.0', resolve));
    try {
      const app = launch({ PORT: String(port), DATA_DIR: path.join(dataDir, 'port') });
      expect(await app.exited).toBe(1);
      expect(app.output()).toContain(`port ${port} is already in use`);
    } finally {
      holder.close();
    }
  });

  it('leaves a damaged database folder as it is and says what to do', async () => {
    const damaged = path.join(dataDir, 'damaged');
    mkdirSync(path.join(damaged, 'postgres'), { recursive: true });
    writeFileSync(path.join(damaged, 'postgres', 'PG_VERSION'), 'not a version\n');
    writeFileSync(path.join(damaged, 'postgres', 'postgresql.conf'), '\u0000\u0001garbage');
    const app = launch({ PORT: String(await freePort()), DATA_DIR: damaged });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('cannot be opened');
    expect(readdirSync(path.join(damaged, 'postgres')).sort()).toEqual([
      'PG_VERSION',
      'postgresql.conf',
    ]);
  });
});
