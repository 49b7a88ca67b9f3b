import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import {
  hostPort,
  startOAuth2Mock,
  TcpProxy,
  testServers,
  viaPort,
  waitFor,
  type OAuth2Mock,
  type ServiceName,
  type ServiceProcess,
} from '@shortener/testkit';
import { Browser } from '../api/support/browser';
import { signIn } from '../api/support/sign-in';
import { brokerReachable, killBroker, startBroker, usesLocalBroker } from './support/kafka-control';
import { RedirectLoad, type Answer } from './support/load';
import {
  checkStorage,
  createLinks,
  FaultStack,
  percent302,
  metric,
  ready,
  report,
  settledCounts,
  tally,
} from './support/scenario';

// Scenario 8: an outage stays the size of its cause. The whole stack runs behind Service-like
// routers (a connection goes only to an instance whose /readyz is 200, as a Kubernetes
// Service sends it), Redis is away for a minute and then Kafka is; every service must stay
// ready all along, hot links keep redirecting, cold ones resolve through the links service,
// sign-in and the API keep working, a link deleted while Redis is away stops redirecting on
// every redirect instance within the memory cache's lifetime and stays stopped once Redis is
// back (with the entry it had), and every visit served is stored once afterwards.

const OUTAGE_MS = Number(process.env['FAULTS_OUTAGE_MS'] ?? 60_000);
const RATE = 200;
/** The redirect instances' memory cache lifetime (their LOCAL_CACHE_TTL_MS). */
const MEMORY_TTL_MS = 1000;
const SERVICES: ServiceName[] = ['auth', 'analytics', 'links', 'redirect', 'gateway'];
const run = Date.now();
const USERS = {
  olga: { sub: `outages-olga-${run}`, name: 'Olga', picture: '', email: 'o@example.com' },
  pete: { sub: `outages-pete-${run}`, name: 'Pete', picture: '', email: 'p@example.com' },
};

// infra can only kill and restart this checkout's own broker, not a cluster KAFKA_BROKERS names.
const local = usesLocalBroker() ? it : it.skip;

/** Every instance's /readyz, once a second, until stopped: each answer that was not a 200. */
function watchReadiness(instances: () => ServiceProcess[]) {
  const notReady: string[] = [];
  let samples = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      await Promise.all(
        instances().map(async (instance) => {
          const status = await fetch(`${instance.opsUrl}/readyz`, {
            signal: AbortSignal.timeout(3000),
          }).then(
            async (response) => (response.ok ? 200 : `${response.status} ${await response.text()}`),
            (error: Error) => error.message,
          );
          samples++;
          if (status !== 200) notReady.push(`${instance.name}:${instance.port} ${status}`);
        }),
      );
      await sleep(1000);
    }
  })();
  return {
    notReady,
    get samples() {
      return samples;
    },
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/**
 * Answers other than a 302 by status: how many, and the first ten as when each was asked
 * for (seconds after the load began, and after Redis or Kafka went away) and how long it took.
 */
function otherAnswers(
  answers: readonly Answer[],
  loadStart: number,
  redisDownAt: number,
  kafkaDownAt: number,
): string {
  if (answers.length === 0) return 'none';
  const seconds = (ms: number): string => (ms / 1000).toFixed(1);
  const phase = (at: number): string =>
    at >= kafkaDownAt
      ? `Kafka away +${seconds(at - kafkaDownAt)} s`
      : at >= redisDownAt
        ? `Redis away +${seconds(at - redisDownAt)} s`
        : 'before the outages';
  return answers
    .slice(0, 10)
    .map(
      (answer) =>
        `${answer.status} asked at ${seconds(answer.sentAt - loadStart)} s (${phase(answer.sentAt)}), ` +
        `took ${answer.answeredAt - answer.sentAt} ms`,
    )
    .concat(answers.length > 10 ? [`and ${answers.length - 10} more`] : [])
    .join(', ');
}

describe('scenario 8: Redis, then Kafka, away for a minute each behind Service-like routers', () => {
  let provider: OAuth2Mock | undefined;
  let redisProxy: TcpProxy | undefined;
  let stack: FaultStack | undefined;
  let load: RedirectLoad | undefined;
  let redis: Redis | undefined;
  /**
   * What each router had refused once the stack was up: while it starts, a service's first
   * readiness check can reach a router before that router's first probe of the instance
   * behind it (as with a Service that has no endpoints yet), which is not the scenario's.
   */
  let refusedAtStart: Record<string, number> = {};

  beforeAll(async () => {
    // A run that died mid-scenario may have left this checkout's broker down.
    if (usesLocalBroker() && !(await brokerReachable())) await startBroker();
    provider = await startOAuth2Mock(USERS);
    redisProxy = await new TcpProxy(hostPort(testServers.redisUrl)).listen();
    stack = await FaultStack.start('outages', {
      services: SERVICES,
      serviceRouters: true,
      env: {
        REDIS_URL: viaPort(testServers.redisUrl, redisProxy.port),
        LOCAL_CACHE_TTL_MS: String(MEMORY_TTL_MS),
        // Rate limits are counted in Redis per address, and a suite run just before (the
        // hostile gateway's) may have spent 127.0.0.1's: this scenario is about outages.
        SIGN_IN_RATE_LIMIT: '1000',
        API_RATE_LIMIT: '100000',
      },
      serviceEnv: { auth: provider.env },
    });
    await stack.add('redirect');
    for (const name of SERVICES) for (const instance of stack.all(name)) await ready(instance);
    // And their routers have seen it (they probe every 500 ms, as a kubelet would).
    await waitFor(
      () =>
        SERVICES.every((name) => stack!.router(name).readyInstances === stack!.all(name).length),
      { what: 'every router sending to every instance' },
    );
    refusedAtStart = Object.fromEntries(
      SERVICES.map((name) => [name, stack!.router(name).refused]),
    );
    redis = new Redis(testServers.redisUrl);
  });

  afterAll(async () => {
    await load?.stop();
    redisProxy?.restore();
    await stack?.stop();
    await redisProxy?.close();
    await provider?.stop();
    await redis?.quit();
  });

  local(
    'keeps every service ready and every short link working through both outages',
    async () => {
      const fault = stack!;
      const redirects = fault.router('redirect').url;
      const origin = fault.url;
      const olga = new Browser();
      expect((await signIn(olga, origin, 'olga')).landedAt).toBe(`${origin}/profile`);
      const shorten = async (browser: Browser, url: string): Promise<Response> =>
        browser.api(
          `${origin}/api/shorten/?${new URLSearchParams({ url, days: '30' }).toString()}`,
          {
            method: 'POST',
          },
        );

      // Hot links, in every cache before the outage; cold ones, in none (the links service
      // alone knows them); one that Olga deletes while Redis is away.
      const hot = await createLinks(fault.client('links'), 'outages-hot', 40);
      const cold = await createLinks(fault.client('links'), 'outages-cold', 10);
      await redis!.del(...[...cold.keys()].map((code) => `link:${code}`));
      const doomedUrl = `https://example.com/outages/doomed/${randomUUID()}`;
      const codeOf = async (response: Response): Promise<string> => {
        const body = await response.text();
        expect(`${response.status} ${body}`).toMatch(/^201 /);
        return (JSON.parse(body) as { url: string }).url;
      };
      const doomed = await codeOf(await shorten(olga, doomedUrl));
      const olgas = await codeOf(
        await shorten(olga, `https://example.com/outages/${randomUUID()}`),
      );
      // 302s the load did not send, counted as it counts its own (the deleted link's visits
      // are deleted with it, so its are not).
      const served = new Map<string, number>();
      const visit = async (code: string, instance: string = redirects): Promise<Response> => {
        const response = await fetch(`${instance}/r/${code}`, { redirect: 'manual' });
        if (response.status === 302 && code !== doomed) {
          served.set(code, (served.get(code) ?? 0) + 1);
        }
        return response;
      };
      for (const code of [...hot.keys(), doomed, olgas]) {
        for (const instance of fault.all('redirect'))
          expect((await visit(code, instance.url)).status).toBe(302);
      }

      const readiness = watchReadiness(() => SERVICES.flatMap((name) => fault.all(name)));
      // Answers other than a 302, for the report: when each was asked for, and how long it took.
      const other: Answer[] = [];
      load = new RedirectLoad({
        targets: [redirects],
        expected: hot,
        ratePerSecond: RATE,
        durationMs: 2 * OUTAGE_MS + 35_000,
        onAnswer: (answer) => {
          if (answer.status !== 302) other.push(answer);
        },
      });
      await sleep(3000);

      // Redis away.
      redisProxy!.cut();
      const redisDownAt = Date.now();
      let doomedStaleAfterDelete = 0;
      let doomedDeletedAt = 0;
      const checkDoomed = async (): Promise<void> => {
        for (const instance of fault.all('redirect')) {
          // Judged by when the request left: a busy machine may hold the answer back.
          const sentAt = Date.now();
          const response = await visit(doomed, instance.url);
          if (response.status !== 404 && sentAt - doomedDeletedAt > MEMORY_TTL_MS + 500) {
            doomedStaleAfterDelete++;
          }
        }
      };
      try {
        await sleep(2000);
        for (const [code, url] of cold) {
          const response = await visit(code);
          expect({
            code,
            status: response.status,
            location: response.headers.get('location'),
          }).toEqual({
            code,
            status: 302,
            location: url,
          });
        }
        const pete = new Browser();
        expect((await signIn(pete, origin, 'pete')).landedAt).toBe(`${origin}/profile`);
        const created = await shorten(
          pete,
          `https://example.com/outages/during-redis/${randomUUID()}`,
        );
        expect(created.status).toBe(201);
        const user = await pete.api(`${origin}/api/user`);
        expect(user.status).toBe(200);
        const deleted = await olga.api(`${origin}/api/delete/${doomed}`, { method: 'POST' });
        expect(deleted.status).toBe(200);
        doomedDeletedAt = Date.now();
        while (Date.now() - redisDownAt < OUTAGE_MS) {
          await checkDoomed();
          await sleep(250);
        }
      } finally {
        redisProxy!.restore();
      }
      // Redis is back with the entry it had for the deleted link: it must stay gone.
      const redisBackAt = Date.now();
      while (Date.now() - redisBackAt < 20_000) {
        await checkDoomed();
        await sleep(250);
      }

      // Kafka away.
      const killed = await killBroker();
      const kafkaDownAt = Date.now();
      expect(killed.stopped).toBe(true);
      try {
        await sleep(5000);
        expect((await olga.api(`${origin}/api/user`)).status).toBe(200);
        const during = `https://example.com/outages/during-kafka/${randomUUID()}`;
        expect((await shorten(olga, during)).status).toBe(201);
        expect((await olga.api(`${origin}/api/visitors/${olgas}`)).status).toBe(200);
        await sleep(Math.max(0, OUTAGE_MS - (Date.now() - kafkaDownAt)));
      } finally {
        await startBroker();
      }

      const result = await load.done;
      await readiness.stop();
      for (const [code, count] of result.served) served.set(code, (served.get(code) ?? 0) + count);
      // A minute of visits waits in the redirects' queues for Kafka, then the consumer catches
      // up after its own rejoin: on a loaded machine that took longer than 90 s.
      const stored = await settledCounts(fault, served, 150_000);
      const counts = tally(served, stored);
      const storage = await checkStorage([...served.keys()]);
      // Where visits went on the redirect side: published, or dropped (queue full, shutdown).
      const redirectsSaid = async (name: string): Promise<number> =>
        (await Promise.all(fault.all('redirect').map((instance) => metric(instance, name)))).reduce(
          (a, b) => a + b,
          0,
        );
      const published = await redirectsSaid('visit_events_published_total');
      const dropped = await redirectsSaid('visit_events_dropped_total');
      const refused = Object.fromEntries(
        SERVICES.map((name) => [name, fault.router(name).refused - refusedAtStart[name]!]),
      );
      report(
        'dependency outages',
        result,
        counts,
        `visit events published ${published}, dropped ${dropped}; ` +
          `readiness samples ${readiness.samples}, not ready ${readiness.notReady.length}; ` +
          `routers refused ${JSON.stringify(refused)} (while starting ` +
          `${JSON.stringify(refusedAtStart)}); deleted link redirected after its memory ` +
          `lifetime ${doomedStaleAfterDelete} times; answers other than a 302 ` +
          `${otherAnswers(other, result.startedAt, redisDownAt, kafkaDownAt)}; failed probes ` +
          JSON.stringify(
            SERVICES.flatMap((name) =>
              fault.router(name).failedProbes.map((probe) => `${name} ${probe}`),
            ),
          ),
      );

      expect(readiness.notReady).toEqual([]);
      expect(Object.values(refused)).toEqual(SERVICES.map(() => 0));
      expect(percent302(result)).toBeGreaterThanOrEqual(99.9);
      expect(doomedStaleAfterDelete).toBe(0);
      expect(counts).toMatchObject({ lost: 0, doubled: 0, mismatched: [] });
      expect(storage).toMatchObject({ duplicateIds: 0, statsMismatches: [] });
      // Everything caught up: every service reports each of its dependencies usable again.
      for (const name of SERVICES) {
        for (const instance of fault.all(name)) {
          await waitFor(
            async () => {
              const body = (await (await fetch(`${instance.opsUrl}/readyz`)).json()) as {
                checks: Record<string, string>;
              };
              return Object.values(body.checks).every((result) => result === 'ok');
            },
            { what: `${name}:${instance.port} reporting every dependency ok`, timeoutMs: 30_000 },
          );
        }
      }
    },
    2 * OUTAGE_MS + 300_000,
  );
});
