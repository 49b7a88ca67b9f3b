import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { TcpProxy } from './proxy';

/** Milliseconds from sending `text` through `socket` until the echo server sends it back. */
async function roundTrip(socket: Socket, text: string): Promise<number> {
  const started = Date.now();
  socket.write(text);
  let echoed = '';
  while (echoed.length < text.length) echoed += String((await once(socket, 'data'))[0]);
  expect(echoed).toBe(text);
  return Date.now() - started;
}

describe('TcpProxy', () => {
  let server: Server;
  let proxy: TcpProxy;

  beforeAll(async () => {
    server = createServer((socket) => socket.pipe(socket)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    proxy = await new TcpProxy({ host: '127.0.0.1', port }).listen();
  });

  afterAll(async () => {
    await proxy.close();
    server.close();
  });

  it('slows an open connection both ways while asked to, in order, and no more after', async () => {
    const socket = connect(proxy.port, '127.0.0.1');
    await once(socket, 'connect');
    try {
      expect(await roundTrip(socket, 'fast')).toBeLessThan(50);
      proxy.slow(60);
      // Held 60 ms on the way there and 60 ms on the way back.
      expect(await roundTrip(socket, 'slow, and in order')).toBeGreaterThanOrEqual(115);
      proxy.slow(0);
      expect(await roundTrip(socket, 'fast again')).toBeLessThan(50);
    } finally {
      socket.destroy();
    }
  });
});
