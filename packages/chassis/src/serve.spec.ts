import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from './logger';
import type { OpsRoutes } from './ops-http';
import { serve } from './serve';

const logger = createLogger('test', 'silent');
const config = { PORT: 0, HOST: '127.0.0.1', KEEP_ALIVE_TIMEOUT_MS: 61_000 };

function fakeOps(order: string[]): OpsRoutes {
  return {
    handle: () => false,
    listen: () => (order.push('ops listen'), Promise.resolve(undefined)),
    nextScrape: () => Promise.resolve(true),
    close: () => (order.push('ops close'), Promise.resolve()),
  };
}

describe('serve', () => {
  it('listens with keep-alive, then stops taking requests, runs the steps, closes ops last', async () => {
    const order: string[] = [];
    const server = createServer((_req, res) => res.end('ok'));
    const running = await serve({
      name: 'test',
      server,
      config,
      logger,
      hosted: true,
      ops: fakeOps(order),
      stopping: () => order.push(`stopping (listening: ${server.listening})`),
      steps: [{ name: 'drain', run: () => (order.push('drain'), Promise.resolve()) }],
    });
    expect(running.port).toBeGreaterThan(0);
    expect(server.keepAliveTimeout).toBe(61_000);
    expect(await (await fetch(`http://127.0.0.1:${running.port}/`)).text()).toBe('ok');
    await running.shutdown('test');
    expect(server.listening).toBe(false);
    // close() stops the listener at once; stopping() runs while its requests drain.
    expect(order).toEqual(['ops listen', 'stopping (listening: false)', 'drain', 'ops close']);
  });

  it('leaves nothing listening, and undoes the start, when the port is taken', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'serve-'));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const socket = createServer();
    const abandon = jest.fn(() => Promise.resolve());
    try {
      await expect(
        serve({
          name: 'test',
          server: createServer(),
          unixSocket: { server: socket, path: path.join(dir, 'test.sock') },
          config: { ...config, PORT: port },
          logger,
          hosted: true,
          ops: fakeOps([]),
          abandon,
          stopping: () => undefined,
          steps: [],
        }),
      ).rejects.toThrow(/EADDRINUSE/);
      expect(socket.listening).toBe(false);
      expect(abandon).toHaveBeenCalledTimes(1);
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
