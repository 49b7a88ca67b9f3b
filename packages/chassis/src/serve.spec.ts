import { Agent, createServer, get, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
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
    // The listener closes after the grace; stopping() runs while its requests drain.
    expect(order).toEqual(['ops listen', 'stopping (listening: false)', 'drain', 'ops close']);
  });

  it('answers what clients send as the shutdown starts, with Connection: close, then stops', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const running = await serve({
      name: 'test',
      server,
      config,
      logger,
      hosted: true,
      ops: fakeOps([]),
      stopping: () => undefined,
      steps: [],
    });
    const kept = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (agent: Agent | false) =>
      new Promise<{ status?: number; connection?: string }>((resolve, reject) => {
        get({ host: '127.0.0.1', port: running.port, path: '/', agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode, connection: res.headers.connection }),
          );
        }).on('error', reject);
      });
    try {
      expect(await ask(kept)).toEqual({ status: 200, connection: 'keep-alive' });
      const stopped = running.shutdown('test');
      // Sent as the signal comes: down the kept connection, idle until now (a proxy's next
      // request), and on a new one (a client that has not heard of the stop yet).
      const [onKept, onNew] = await Promise.all([ask(kept), ask(false)]);
      expect(onKept).toEqual({ status: 200, connection: 'close' });
      expect(onNew).toEqual({ status: 200, connection: 'close' });
      await stopped;
      expect(server.listening).toBe(false);
      await expect(ask(false)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      kept.destroy();
    }
  });

  it('ends live streams once it stops listening: a reconnect cannot hold the shutdown', async () => {
    const streams: ServerResponse[] = [];
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: open\n\n');
      streams.push(res);
    });
    const running = await serve({
      name: 'test',
      server,
      config,
      logger,
      hosted: true,
      ops: fakeOps([]),
      stopping: () => streams.forEach((stream) => stream.end('event: end\ndata: {}\n\n')),
      steps: [],
    });
    // As EventSource does: when its stream ends, it opens another at once.
    const open = (ended?: (again: Promise<string>) => void) =>
      new Promise<void>((opened, reject) => {
        get({ host: '127.0.0.1', port: running.port, path: '/', agent: false }, (res) => {
          res.once('data', () => opened());
          res.on('end', () =>
            ended?.(
              open().then(
                () => 'reconnected',
                (error: NodeJS.ErrnoException) => error.code ?? 'error',
              ),
            ),
          );
          res.resume();
        }).on('error', reject);
      });
    let reconnected: (again: Promise<string>) => void = () => undefined;
    const reconnect = new Promise<string>((resolve) => (reconnected = resolve));
    await open(reconnected);
    const began = Date.now();
    await running.shutdown('test');
    // Before, the stream ended first and its reconnect, taken, held the stop for 25 s.
    expect(Date.now() - began).toBeLessThan(5000);
    expect(await reconnect).toBe('ECONNREFUSED');
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

  it('shuts down while a proxy keeps the connection of a stream it ended, on the Unix socket', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'serve-'));
    const socketPath = path.join(dir, 'test.sock');
    const streams: ServerResponse[] = [];
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: open\n\n');
      streams.push(res);
    });
    // As the Nest services do: the socket's connections are handed to the HTTP server.
    const socket = createNetServer((connection) => server.emit('connection', connection));
    // nginx's upstream keep-alive: the connection stays open, idle, once the stream has ended.
    const proxy = new Agent({ keepAlive: true });
    try {
      const running = await serve({
        name: 'test',
        server,
        unixSocket: { server: socket, path: socketPath },
        config,
        logger,
        hosted: true,
        ops: fakeOps([]),
        // A live stream ends when its service stops, after the listeners have closed.
        stopping: () => streams.forEach((stream) => stream.end('event: end\ndata: {}\n\n')),
        steps: [],
      });
      let ended: Promise<void> = Promise.resolve();
      await new Promise<void>((opened, reject) => {
        get({ socketPath, path: '/', agent: proxy }, (res) => {
          ended = new Promise((resolve) => res.on('end', resolve));
          res.once('data', () => opened());
          res.resume();
        }).on('error', reject);
      });

      // Would wait until the proxy drops its idle connection (nginx: its keepalive_timeout).
      await running.shutdown('test');
      await ended;
      expect(socket.listening).toBe(false);
      expect(Object.values(proxy.freeSockets).flat()).toHaveLength(1);
    } finally {
      proxy.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
