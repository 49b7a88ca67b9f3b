import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { InternalClient } from '@shortener/chassis';
import { internalApi, linkStatsSchema, userDataSchema } from '@shortener/contracts';
import {
  REPO_ROOT,
  startOAuth2Mock,
  waitFor,
  type OAuth2Mock,
  type ServiceName,
  type ServiceProcess,
} from '@shortener/testkit';
import { Browser } from '../api/support/browser';
import { signIn } from '../api/support/sign-in';
import { checkStorage, createLinks, FaultStack, ready, tally } from './support/scenario';

// Rolling upgrades: this release's pods beside the previous release's (the commit in
// tests/compat/previous-release.json, built by scripts/previous-release.mjs into .cache/), as a
// Kubernetes rolling update runs them. The API journey (sign in, shorten, list, redirect through
// the gateway and straight to the redirect service, stats, visitors, delete) on a stack mixed
// each way, and every visit counted exactly once; links pods of both releases on one schema;
// analytics rolled out from the previous release and rolled back to it.

const USER = {
  sub: `rolling-${randomUUID()}`,
  name: 'Rolling Upgrade',
  email: 'rolling@example.com',
  picture: 'https://example.com/rolling.png',
};
const SERVICES: ServiceName[] = ['auth', 'links', 'analytics', 'redirect', 'gateway'];
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

let previous: string;
let provider: OAuth2Mock;

beforeAll(async () => {
  // Built once and kept in .cache/ (about a minute the first time); CI builds it before the suites.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts', 'previous-release.mjs')],
    { cwd: REPO_ROOT, timeout: 300_000 },
  );
  previous = stdout.trim();
  provider = await startOAuth2Mock({ rolling: USER });
}, 320_000);

afterAll(async () => {
  await provider?.stop();
});

/** Starts the whole stack, the services in `old` from the previous release's build. */
async function mixedStack(scenario: string, old: ServiceName[]): Promise<FaultStack> {
  const stack = await FaultStack.start(scenario, {
    services: SERVICES,
    roots: Object.fromEntries(old.map((name) => [name, previous])),
    env: { SIGN_IN_RATE_LIMIT: '1000' },
    serviceEnv: { auth: provider.env },
  });
  for (const name of SERVICES) await ready(stack.get(name));
  return stack;
}

/**
 * The journey, with `visits` redirects of each of two links (one signed in, one anonymous),
 * half through the gateway's /r/ and half straight to the redirect service; answers the
 * number served per code.
 */
async function journey(stack: FaultStack, visits: number, newRedirect: boolean): Promise<void> {
  const browser = new Browser({ 'x-forwarded-for': '198.18.9.1' });
  const anonymous = new Browser({ 'x-forwarded-for': '198.18.9.2' });
  await signIn(browser, stack.url, 'rolling');
  const shorten = async (who: Browser, days: number): Promise<[string, string]> => {
    const target = `https://example.com/rolling/${randomUUID()}`;
    const query = new URLSearchParams({ url: target, days: String(days) });
    const response = await who.api(`${stack.url}/api/shorten/?${query.toString()}`, {
      method: 'POST',
    });
    expect(response.status).toBe(201);
    return [((await response.json()) as { url: string }).url, target];
  };
  const [own, ownTarget] = await shorten(browser, 30);
  const [anon, anonTarget] = await shorten(anonymous, 7);
  const listed = async () => {
    const response = await browser.api(`${stack.url}/api/user`);
    expect(response.status).toBe(200);
    return userDataSchema.parse(await response.json()).urls.map((link) => link.urlID);
  };
  expect(await listed()).toContain(own);

  const served = new Map<string, number>();
  for (const [code, target] of [
    [own, ownTarget],
    [anon, anonTarget],
  ] as const) {
    for (let i = 0; i < visits; i++) {
      const origin = i % 2 === 0 ? stack.url : stack.get('redirect').url;
      // Some with campaign fields, which a previous release on either side must take in stride.
      const search = i % 3 === 0 ? '?utm_source=rolling&utm_medium=email' : '';
      const response = await fetch(`${origin}/r/${code}${search}`, {
        redirect: 'manual',
        headers: { 'user-agent': CHROME, 'x-forwarded-for': `203.0.113.${i + 1}` },
      });
      // This release's redirect forwards the short link's query; the previous one did not.
      const location = newRedirect ? `${target}${search}` : target;
      expect([response.status, response.headers.get('location')]).toEqual([302, location]);
      served.set(code, (served.get(code) ?? 0) + 1);
    }
  }

  // Stats count each visit once, read by whichever analytics serves the gateway.
  const stats = await waitFor(
    async () => {
      const response = await browser.api(`${stack.url}/api/stats/${own}?range=24h`);
      if (response.status !== 200) return false;
      const current = linkStatsSchema.parse(await response.json());
      return current.totals.visits >= visits ? current : false;
    },
    { what: 'the visits in the stats', timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(stats.totals).toMatchObject({ visits, humans: visits, uniqueVisitors: visits });
  const visitors = await browser.api(`${stack.url}/api/visitors/${own}?limit=${visits + 5}`);
  expect(visitors.status).toBe(200);
  expect(((await visitors.json()) as unknown[]).length).toBe(visits);
  // Under the API: one row per served redirect, no id twice, link_stats agreeing.
  const storage = await waitFor(
    async () => {
      const check = await checkStorage([own, anon]);
      return check.rows.get(anon) === visits ? check : false;
    },
    { what: "the anonymous link's visits stored", timeoutMs: 60_000, intervalMs: 250 },
  );
  const counted = tally(served, storage.rows);
  expect(counted).toMatchObject({ lost: 0, doubled: 0, mismatched: [] });
  expect(storage.duplicateIds).toBe(0);
  expect(storage.statsMismatches).toEqual([]);

  // Deleted: gone from the list, and no redirect through either way in.
  const deleted = await browser.api(`${stack.url}/api/delete/${own}`, { method: 'POST' });
  expect(deleted.status).toBe(200);
  expect(await listed()).not.toContain(own);
  for (const origin of [stack.url, stack.get('redirect').url]) {
    await waitFor(
      async () =>
        (await fetch(`${origin}/r/${own}`, { redirect: 'manual', method: 'HEAD' })).status === 404,
      { what: `${own} gone through ${origin}`, timeoutMs: 5_000, intervalMs: 100 },
    );
  }
  process.stdout.write(
    `rolling upgrade: served ${counted.served}, stored ${counted.stored}, lost ${counted.lost}, doubled ${counted.doubled}\n`,
  );
}

describe.each([
  ['old edges (redirect, gateway) on new backends', ['redirect', 'gateway']],
  ['new edges on old backends (auth, links, analytics)', ['auth', 'links', 'analytics']],
] as Array<[string, ServiceName[]]>)('rolling upgrade: %s', (label, old) => {
  let stack: FaultStack | undefined;

  beforeAll(async () => {
    stack = await mixedStack(`rolling-${old.join('-')}`, old);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it(`runs the API journey with every visit counted once (${label})`, async () => {
    try {
      await journey(stack!, 10, !old.includes('redirect'));
    } catch (error) {
      process.stdout.write(stack!.output());
      throw error;
    }
  });
});

describe('rolling upgrade: links pods of both releases side by side', () => {
  let stack: FaultStack | undefined;
  let old: InternalClient;

  beforeAll(async () => {
    // The first links instance (this release's) answers the test's calls; a previous
    // release's instance beside it, on the same schema, as in the middle of a rollout.
    stack = await FaultStack.start('rolling-links', { services: ['links'] });
    // Its removal rounds every 100 ms: they must leave a link inside its undo window alone
    // (a release that settled a removal as soon as it was queued would fail the restore below).
    const previousPod = await stack.add('links', { REMOVALS_INTERVAL_MS: '100' }, previous);
    // Both answer /healthz before PostgreSQL is connected; until then a resolve is a 503.
    for (const pod of stack.all('links')) await ready(pod);
    old = new InternalClient('links', previousPod.url, stack.secret);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("hides a link this release deleted (undoably) from the previous release's pods, and shows it again once restored", async () => {
    const owner = { userId: `rolling-${randomUUID()}` };
    const current = stack!.client('links');
    const created = await current.call(internalApi.createLink, {
      identity: owner,
      body: { url: `https://example.com/rolling/${randomUUID()}`, days: 30 },
    });
    if (created.status !== 201) throw new Error(`link not created: ${created.status}`);
    const code = created.body.urlID;
    const params = { code };
    const listedByOld = async () => {
      const page = await old.call(internalApi.listLinks, { identity: owner });
      return page.status === 200 ? page.body.links.map((link) => link.urlID) : [];
    };
    expect((await old.call(internalApi.resolveLink, { params })).status).toBe(200);
    expect(await listedByOld()).toEqual([code]);

    expect((await current.call(internalApi.deleteLink, { identity: owner, params })).status).toBe(
      204,
    );
    // Within the undo window the row is kept, marked; the previous release must not serve it.
    expect((await old.call(internalApi.resolveLink, { params })).status).toBe(404);
    expect((await old.call(internalApi.getLink, { identity: owner, params })).status).toBe(404);
    expect(await listedByOld()).toEqual([]);
    // A few of the previous pod's removal rounds.
    await sleep(1_000);

    const restored = await current.call(internalApi.restoreLink, { identity: owner, params });
    expect(restored).toEqual({ status: 200, body: created.body });
    // Both releases resolve it alike (its version, raised by the delete and the restore, too).
    const resolved = await old.call(internalApi.resolveLink, { params });
    expect(resolved).toEqual(await current.call(internalApi.resolveLink, { params }));
    expect(resolved.body).toMatchObject({
      url: created.body.originalUrl,
      expiresAt: created.body.expiresAt,
    });
    expect(await listedByOld()).toEqual([code]);
  });
});

/**
 * Analytics pods of both releases on one consumer group and the partitioned visits, as a
 * rollout (or a rollback) of analytics runs them: `rounds` visits of each link in each step,
 * every one stored once (checked under the API) before the next step; the pods of `reader`
 * count them too. `steps` says what changes before each round.
 */
async function analyticsSteps(
  stack: FaultStack,
  scenario: string,
  steps: Array<{ what: string; before?: () => Promise<unknown> }>,
  reader: () => InternalClient,
): Promise<void> {
  const links = await createLinks(stack.client('links'), scenario, 5);
  const codes = [...links.keys()];
  const served = new Map<string, number>();
  for (const [round, { what, before }] of steps.entries()) {
    await before?.();
    for (const [code, target] of links) {
      for (let i = 0; i < 2; i++) {
        // One of each two with campaign fields: this release's redirect sends them in a
        // header beside a record the previous release's analytics reads whole.
        const search = i === 0 ? `?utm_source=rolling&utm_campaign=round-${round}` : '';
        const response = await fetch(`${stack.get('redirect').url}/r/${code}${search}`, {
          redirect: 'manual',
          headers: { 'user-agent': CHROME, 'x-forwarded-for': `203.0.113.${round * 2 + i + 1}` },
        });
        // This release's redirect, which forwards the short link's query to the destination.
        const location = `${target}${search}`;
        expect([response.status, response.headers.get('location')]).toEqual([302, location]);
        served.set(code, (served.get(code) ?? 0) + 1);
      }
    }
    const stored = await waitFor(
      async () => {
        const check = await checkStorage(codes);
        return codes.every((code) => check.rows.get(code) === served.get(code)) && check;
      },
      { what: `every visit stored (${what})`, timeoutMs: 60_000, intervalMs: 250 },
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify([...(await checkStorage(codes)).rows])}`);
    });
    const counted = tally(served, stored.rows);
    expect(counted).toMatchObject({ lost: 0, doubled: 0, mismatched: [] });
    expect(stored.duplicateIds).toBe(0);
    expect(stored.statsMismatches).toEqual([]);
    const counts = await reader().call(internalApi.visitCounts, { body: { codes } });
    expect(counts.status).toBe(200);
    expect(counts.body.counts).toEqual(Object.fromEntries(served));
    process.stdout.write(
      `${scenario} (${what}): served ${counted.served}, stored ${counted.stored}, lost ${counted.lost}, doubled ${counted.doubled}\n`,
    );
  }
}

// The previous release already ran on the partitioned visits (its release shipped the
// partitioning), and no migration since is one it cannot run beside (the rule in
// services/analytics/src/migrations/index.ts): its pods, which run their migrations at start,
// find nothing to do and store on today's schema. So analytics can be rolled out and rolled
// back one release with every visit stored once.
describe('rolling upgrade: analytics pods of both releases on the partitioned visits', () => {
  let stack: FaultStack | undefined;

  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it("rolls out: a previous pod alone, then beside this release's, then this release's alone store every visit once", async () => {
    stack = await mixedStack('rolling-analytics-out', ['analytics']);
    const current = stack;
    const previousPod = current.get('analytics');
    let newPod: ServiceProcess | undefined;
    try {
      await analyticsSteps(
        current,
        'rolling-analytics-out',
        [
          { what: 'the previous release alone' },
          {
            what: "beside this release's",
            before: async () => {
              newPod = await current.add('analytics', {}, REPO_ROOT);
              await ready(newPod);
            },
          },
          { what: "this release's alone", before: () => previousPod.stop() },
        ],
        () => new InternalClient('analytics', (newPod ?? previousPod).url, current.secret),
      );
    } catch (error) {
      process.stdout.write(current.output());
      throw error;
    }
  });

  it("rolls back: this release's pod replaced by the previous release's, every visit stored once and none lost", async () => {
    stack = await mixedStack('rolling-analytics-back', []);
    const current = stack;
    const newPod = current.get('analytics');
    let previousPod: ServiceProcess | undefined;
    try {
      await analyticsSteps(
        current,
        'rolling-analytics-back',
        [
          { what: "this release's alone" },
          {
            what: "the previous release's beside it",
            before: async () => {
              previousPod = await current.add('analytics', {}, previous);
              await ready(previousPod);
            },
          },
          { what: 'the previous release alone', before: () => newPod.stop() },
        ],
        () => new InternalClient('analytics', (previousPod ?? newPod).url, current.secret),
      );
    } catch (error) {
      process.stdout.write(current.output());
      throw error;
    }
  });
});
