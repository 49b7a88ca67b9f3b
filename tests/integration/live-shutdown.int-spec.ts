import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIVE_END_REASONS, LIVE_EVENTS } from '@shortener/contracts';
import {
  startOAuth2Mock,
  startStack,
  waitFor,
  type OAuth2Mock,
  type ServiceProcess,
  type Stack,
} from '@shortener/testkit';
import { Browser as StackBrowser } from '../api/support/browser';
import { EventReader } from '../api/support/event-reader';
import { signIn } from '../api/support/sign-in';
import { signInLocally, startCopied, type Browser, type Embedded } from './embedded-app';

// SIGTERM with live streams open (issue 37, item 5): every stream is sent `end` at once and
// closed, nothing new is served once the drain is over, and the process exits well within
// its 25 s shutdown limit. The embedded mode (`npm start`, listening on 127.0.0.1 and ::1)
// and a gateway process of the stack alike.

/** How soon after SIGTERM every stream must have its `end` and be closed. */
const ENDED_WITHIN_MS = 3000;
/** The shutdown limit of every process (chassis onShutdown; the embedded host's too). */
const DRAIN_MS = 25_000;

interface Fetcher {
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

async function openStream(browser: Fetcher, origin: string, code: string): Promise<EventReader> {
  const response = await browser.fetch(`${origin}/api/stats/${code}/live`, {
    headers: { 'sec-fetch-site': 'same-origin', accept: 'text/event-stream' },
  });
  expect(response.status).toBe(200);
  return new EventReader(response);
}

/** Sends SIGTERM and checks what a stopping process owes its live streams and its callers. */
async function stopWithStreamsOpen(options: {
  streams: EventReader[];
  sigterm: () => void;
  exited: Promise<number | null>;
  /** A request as a new client makes it, on a new connection. */
  newRequest: () => Promise<Response>;
}): Promise<void> {
  const stoppedAt = Date.now();
  options.sigterm();
  await waitFor(() => options.streams.every((stream) => stream.ended), {
    what: 'every live stream ended',
    timeoutMs: ENDED_WITHIN_MS,
    intervalMs: 20,
  });
  for (const stream of options.streams) {
    expect(stream.events.filter(({ event }) => event === LIVE_EVENTS.end)).toEqual([
      { event: LIVE_EVENTS.end, data: JSON.stringify({ reason: LIVE_END_REASONS.serverStopping }) },
    ]);
  }
  const exitCode = await Promise.race([
    options.exited,
    sleep(DRAIN_MS).then(() => 'still running' as const),
  ]);
  const took = Date.now() - stoppedAt;
  expect(exitCode).toBe(0);
  expect(took).toBeLessThan(DRAIN_MS);
  await expect(options.newRequest()).rejects.toThrow();
}

describe('SIGTERM with live streams open', () => {
  describe('the embedded mode', () => {
    let dataDir: string;
    let app: Embedded | undefined;

    beforeAll(() => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'shortener-live-shutdown-'));
    });

    afterAll(() => {
      if (app?.child.exitCode === null) app.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('ends every stream at once with `end`, on 127.0.0.1 and ::1, and exits within the drain time', async () => {
      app = await startCopied(path.join(dataDir, 'data'));
      const browser: Browser = await signInLocally(app, 'Live Shutdown');
      const shortened = await browser.fetch(
        `${app.url}/api/shorten/?url=https://example.com/live-shutdown&days=30`,
        { method: 'POST', headers: { 'x-requested-with': 'XMLHttpRequest' } },
      );
      expect(shortened.status).toBe(201);
      const { url: code } = (await shortened.json()) as { url: string };
      const streams = [
        await openStream(browser, `http://127.0.0.1:${app.port}`, code),
        await openStream(browser, `http://[::1]:${app.port}`, code),
        await openStream(browser, `http://[::1]:${app.port}`, code),
      ];
      const running = app;
      await stopWithStreamsOpen({
        streams,
        sigterm: () => running.child.kill('SIGTERM'),
        exited: running.exited,
        newRequest: () =>
          fetch(`http://127.0.0.1:${running.port}/api/shorten/?url=https://example.com/late`, {
            method: 'POST',
            headers: { 'x-requested-with': 'XMLHttpRequest', connection: 'close' },
          }),
      });
    }, 120_000);
  });

  describe('a gateway process of the stack', () => {
    const user = `live-shutdown-${randomUUID()}`;
    let provider: OAuth2Mock;
    let stack: Stack;
    let gateway: ServiceProcess;

    beforeAll(async () => {
      provider = await startOAuth2Mock({
        [user]: { sub: user, name: 'Live Shutdown', email: 'l@example.com', picture: '' },
      });
      stack = await startStack({ serviceEnv: { auth: provider.env } });
      // A gateway of its own, stopped here; the stack's first one stays for the stack's stop.
      gateway = await stack.add('gateway');
    });

    afterAll(async () => {
      await stack?.stop();
      await provider?.stop();
    });

    it('ends every stream at once with `end` and exits within the drain time', async () => {
      const browser = new StackBrowser();
      // Signed in through the stack's gateway (the callback's origin); the cookie holds for
      // every port of 127.0.0.1.
      await signIn(browser, stack.url, user);
      const shortened = await browser.api(
        `${stack.url}/api/shorten/?url=https://example.com/live-shutdown&days=30`,
        { method: 'POST' },
      );
      expect(shortened.status).toBe(201);
      const { url: code } = (await shortened.json()) as { url: string };
      const streams = await Promise.all(
        [1, 2, 3].map(() => openStream(browser, gateway.url, code)),
      );
      await stopWithStreamsOpen({
        streams,
        sigterm: () => gateway.child.kill('SIGTERM'),
        exited: gateway.exited,
        newRequest: () => fetch(`${gateway.url}/healthz`, { headers: { connection: 'close' } }),
      });
    });
  });
});
