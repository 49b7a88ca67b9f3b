import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import { freePort, startStack, TcpProxy, type Stack } from '@shortener/testkit';

// A redirect instance stopped while Kafka is away (a rollout or a scale-down during the
// outage) and analytics too (its hand-off, the second way out, has nowhere to go): it gives
// up after VISIT_DRAIN_TIMEOUT_MS and VISIT_HAND_OFF_TIMEOUT_MS instead of waiting until it
// is killed, says exactly how many visits it could hand to neither, at error, counts them in
// visit_events_dropped_total{reason="shutdown"} and waits for that count to be scraped
// before it exits (the pod and its spool may go with it: issue 38, item 4).

const DROPPED = /^visit_events_dropped_total\{[^}]*reason="shutdown"[^}]*\} (\d+)$/m;

describe('a redirect stopping while Kafka and analytics are away', () => {
  let stack: Stack;
  let kafka: TcpProxy;
  const spool = mkdtempSync(path.join(tmpdir(), 'visit-spool-'));

  beforeAll(async () => {
    // A broker address where every connection is closed at once: Kafka away from the start.
    // Analytics is not started: its URL leads nowhere.
    kafka = await new TcpProxy({ host: '127.0.0.1', port: 1 }, { startOpen: false }).listen();
    stack = await startStack({
      services: ['links', 'redirect'],
      serviceEnv: {
        redirect: {
          KAFKA_BROKERS: `127.0.0.1:${kafka.port}`,
          VISIT_DRAIN_TIMEOUT_MS: '1500',
          VISIT_HAND_OFF_TIMEOUT_MS: '1000',
          VISIT_SPOOL_DIR: spool,
          OPS_PORT: String(await freePort()),
        },
      },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await kafka?.close();
    rmSync(spool, { recursive: true, force: true });
  });

  it('counts and logs at error every visit it could hand to neither, and is scraped before it exits', async () => {
    const links = new InternalClient('links', stack.get('links').url, stack.secret);
    const created = await links.call(internalApi.createLink, {
      identity: { userId: 'redirect-shutdown' },
      body: { url: 'https://example.com/redirect-shutdown', days: 1 },
    });
    expect(created.status).toBe(201);
    const code = created.status === 201 ? created.body.urlID : '';
    const redirect = stack.get('redirect');
    let served = 0;
    for (let n = 0; n < 25; n++) {
      const response = await fetch(`${redirect.url}/r/${code}`, { redirect: 'manual' });
      if (response.status === 302) served++;
    }
    expect(served).toBe(25);
    const scrape = async () => (await fetch(`${redirect.opsUrl}/metrics`)).text();
    const before = await scrape();
    expect(before).toMatch(/^visit_queue_depth\{[^}]*\} 25$/m);
    expect(DROPPED.exec(before)?.[1]).toBe('0');

    const stoppedAt = Date.now();
    redirect.child.kill('SIGTERM');
    // Scraped as Prometheus would, until the count shows or the process is gone.
    let seen: string | undefined;
    while (redirect.child.exitCode === null && seen !== '25') {
      seen = DROPPED.exec(await scrape().catch(() => ''))?.[1];
      await sleep(200);
    }
    const exitCode = await redirect.exited;
    const took = Date.now() - stoppedAt;

    expect(seen).toBe('25');
    const line = redirect
      .output()
      .split('\n')
      .find((text) => text.includes('lost at shutdown'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      level: 'error',
      lost: 25,
      handedOff: 0,
      spooled: true,
    });
    // Left in the spool: a next container on the folder would publish them.
    expect(readdirSync(spool).filter((name) => name.endsWith('.spool'))).not.toEqual([]);
    // Well before the 25 s after which a stuck shutdown is cut short (exit code 1).
    expect(took).toBeLessThan(10_000);
    expect(exitCode).toBe(0);
  });
});
