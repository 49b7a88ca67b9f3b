import { Client } from 'pg';
import { InternalClient } from '@shortener/chassis';
import { DAY_MS, internalApi } from '@shortener/contracts';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';

// What happens to a link's data after it is gone, on the real servers: the links service's
// retention purge, the analytics service's tombstone purge, and the removals outbox, which
// keeps a removal while the analytics service is away and delivers it once it is back.

const owner = { userId: 'removals-and-purges' };
/** The shortest undo window the links service takes: a deleted link is purged after it. */
const UNDO_WINDOW_MS = 6000;

describe('removals and purges', () => {
  let stack: Stack;
  let links: InternalClient;
  let analytics: InternalClient;
  let db: Client;

  async function create(path: string): Promise<string> {
    const response = await links.call(internalApi.createLink, {
      identity: owner,
      body: { url: `https://example.com/${path}`, days: 7 },
    });
    if (response.status !== 201) throw new Error(`not created: ${response.body.message}`);
    return response.body.urlID;
  }

  async function visitCounts(codes: string[]): Promise<Record<string, number>> {
    const response = await analytics.call(internalApi.visitCounts, { body: { codes } });
    return response.body.counts;
  }

  /** Visits each link once through the redirect and waits until analytics has stored them. */
  async function visitAll(codes: string[]): Promise<void> {
    for (const code of codes) {
      const response = await fetch(`${stack.get('redirect').url}/r/${code}`, {
        redirect: 'manual',
      });
      expect(response.status).toBe(302);
    }
    await waitFor(
      async () => {
        const counts = await visitCounts(codes);
        return codes.every((code) => counts[code] === 1);
      },
      { what: 'the visits stored', timeoutMs: 30_000 },
    );
  }

  /** Visits stored for a link, read from the table (the analytics API may be down). */
  async function storedVisits(code: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM analytics.visits WHERE url_id = $1',
      [code],
    );
    return rows[0]?.n ?? 0;
  }

  async function linkExists(code: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM links.links WHERE code = $1', [code]);
    return rowCount === 1;
  }

  async function inOutbox(code: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM links.removed_links WHERE code = $1', [
      code,
    ]);
    return rowCount === 1;
  }

  /** Moves a link's expiry `daysAgo` into the past (and its creation a week before that). */
  async function expire(code: string, daysAgo: number): Promise<void> {
    const expiresAt = Date.now() - daysAgo * DAY_MS;
    await db.query('UPDATE links.links SET created_at = $2, expires_at = $3 WHERE code = $1', [
      code,
      new Date(expiresAt - 7 * DAY_MS),
      new Date(expiresAt),
    ]);
  }

  beforeAll(async () => {
    stack = await startStack({
      services: ['analytics', 'links', 'redirect'],
      serviceEnv: {
        links: {
          LINK_RETENTION_DAYS: '30',
          PURGE_INTERVAL_MS: '1000',
          REMOVALS_INTERVAL_MS: '200',
          DELETE_UNDO_WINDOW_MS: String(UNDO_WINDOW_MS),
        },
        analytics: { TOMBSTONE_RETENTION_DAYS: '90', TOMBSTONE_PURGE_INTERVAL_MS: '1000' },
      },
    });
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
    db = new Client({ connectionString: testServers.databaseUrl });
    await db.connect();
    for (const service of ['analytics', 'links', 'redirect'] as const) {
      await waitFor(async () => (await fetch(`${stack.get(service).url}/readyz`)).ok, {
        what: `${service} ready`,
        timeoutMs: 30_000,
      });
    }
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.end();
  });

  it('purges links expired longer ago than LINK_RETENTION_DAYS, with their visits, and nothing else', async () => {
    const [pastRetention, withinRetention, live] = [
      await create('past-retention'),
      await create('within-retention'),
      await create('live'),
    ];
    await visitAll([pastRetention, withinRetention, live]);
    await expire(pastRetention, 31);
    await expire(withinRetention, 29);

    await waitFor(async () => !(await linkExists(pastRetention)), {
      what: 'the link past its retention purged',
      timeoutMs: 15_000,
    });
    // Its removal goes through the outbox like a deletion: delivered, the outbox row goes.
    await waitFor(
      async () => (await storedVisits(pastRetention)) === 0 && !(await inOutbox(pastRetention)),
      { what: "the purged link's visits deleted and its removal settled", timeoutMs: 15_000 },
    );
    // Another purge round has passed (it took a second link past its retention): what is
    // within the retention, or live, stays.
    const marker = await create('past-retention-marker');
    await expire(marker, 31);
    await waitFor(async () => !(await linkExists(marker)), {
      what: 'a later purge round',
      timeoutMs: 15_000,
    });
    expect(await linkExists(withinRetention)).toBe(true);
    expect(await linkExists(live)).toBe(true);
    expect(await visitCounts([pastRetention, withinRetention, live])).toEqual({
      [pastRetention]: 0,
      [withinRetention]: 1,
      [live]: 1,
    });
    expect(await storedVisits(withinRetention)).toBe(1);
    expect(await storedVisits(live)).toBe(1);
  });

  it('purges tombstones older than TOMBSTONE_RETENTION_DAYS, and only those', async () => {
    const run = Date.now().toString(36).slice(-5);
    const old = `old-${run}`;
    const recent = `new-${run}`;
    const kept = await create('tombstone-neighbour');
    await visitAll([kept]);
    await db.query(
      `INSERT INTO analytics.deleted_links (url_id, deleted_at) VALUES
         ($1, now() - interval '91 days'), ($2, now() - interval '89 days')`,
      [old, recent],
    );
    const tombstone = async (code: string): Promise<boolean> =>
      (await db.query('SELECT 1 FROM analytics.deleted_links WHERE url_id = $1', [code]))
        .rowCount === 1;

    await waitFor(async () => !(await tombstone(old)), {
      what: 'the old tombstone purged',
      timeoutMs: 15_000,
    });
    // Another purge round has passed: it took a second old tombstone.
    const marker = `old2-${run}`;
    await db.query(
      `INSERT INTO analytics.deleted_links (url_id, deleted_at) VALUES ($1, now() - interval '91 days')`,
      [marker],
    );
    await waitFor(async () => !(await tombstone(marker)), {
      what: 'a later purge round',
      timeoutMs: 15_000,
    });
    expect(await tombstone(recent)).toBe(true);
    expect(await storedVisits(kept)).toBe(1);
    expect(await visitCounts([kept])).toEqual({ [kept]: 1 });
    await db.query('DELETE FROM analytics.deleted_links WHERE url_id = $1', [recent]);
  });

  it('keeps a deleted link and its visits through the undo window, then purges them', async () => {
    const code = await create('deleted-then-purged');
    await visitAll([code]);
    const deleted = await links.call(internalApi.deleteLink, { identity: owner, params: { code } });
    expect(deleted.status).toBe(204);
    // Within the window: no redirect, but the row and the visits are kept for a restore.
    expect(
      (await fetch(`${stack.get('redirect').url}/r/${code}`, { redirect: 'manual' })).status,
    ).toBe(404);
    // A removals round has passed: it purged a link deleted as well, its window moved past.
    const marker = await create('deleted-marker');
    await links.call(internalApi.deleteLink, { identity: owner, params: { code: marker } });
    await db.query('UPDATE links.removed_links SET purge_after = now() WHERE code = $1', [marker]);
    await waitFor(async () => !(await linkExists(marker)) && !(await inOutbox(marker)), {
      what: 'a removals round',
      timeoutMs: 15_000,
    });
    expect(await linkExists(code)).toBe(true);
    expect(await storedVisits(code)).toBe(1);
    expect(await inOutbox(code)).toBe(true);
    await waitFor(
      async () =>
        !(await linkExists(code)) && (await storedVisits(code)) === 0 && !(await inOutbox(code)),
      {
        what: 'the link and its visits purged after the window',
        timeoutMs: UNDO_WINDOW_MS + 15_000,
      },
    );
    const restore = await links.call(internalApi.restoreLink, {
      identity: owner,
      params: { code },
    });
    expect(restore.status).toBe(404);
  });

  it('keeps a removal in the outbox while analytics is down, and delivers it when analytics is back', async () => {
    const code = await create('removed-while-analytics-down');
    const neighbour = await create('neighbour-of-removed');
    await visitAll([code, neighbour]);

    const analyticsProcess = stack.get('analytics');
    await analyticsProcess.stop('SIGTERM');
    const deleted = await links.call(internalApi.deleteLink, { identity: owner, params: { code } });
    expect(deleted.status).toBe(204);
    // Past the undo window the link goes; several retry rounds (every 200 ms) then fail
    // meanwhile: the removal stays, the visits too.
    await waitFor(async () => !(await linkExists(code)), {
      what: 'the deleted link purged after the undo window',
      timeoutMs: UNDO_WINDOW_MS + 10_000,
    });
    // A removals round has tried to deliver it meanwhile, and failed.
    await waitFor(
      () => stack.get('links').output().includes('visits not deleted yet; will retry'),
      { what: 'a failed delivery of the removal', timeoutMs: 15_000 },
    );
    // All at once, so a failure says which went wrong (once, in CI, the outbox was empty).
    expect({
      inOutbox: await inOutbox(code),
      storedVisits: await storedVisits(code),
      retried: stack.get('links').output().includes('visits not deleted yet; will retry'),
      analyticsExited: analyticsProcess.child.exitCode ?? analyticsProcess.child.signalCode,
    }).toEqual({ inOutbox: true, storedVisits: 1, retried: true, analyticsExited: 0 });

    // Back on the same address and environment, as a restarted pod behind its Service.
    await stack.restart(analyticsProcess, 'SIGTERM');
    await waitFor(async () => !(await inOutbox(code)), {
      what: 'the removal delivered',
      timeoutMs: 20_000,
    });
    expect(await storedVisits(code)).toBe(0);
    expect(await visitCounts([code, neighbour])).toEqual({ [code]: 0, [neighbour]: 1 });
  });
});
