import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { keepIdleConnections } from './keep-alive';

describe('keepIdleConnections', () => {
  let server: Server;

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('closes a kept-alive connection once idle for KEEP_ALIVE_TIMEOUT_MS, not Node’s 5 s', async () => {
    server = createServer((_, res) => res.end('ok'));
    keepIdleConnections(server, { KEEP_ALIVE_TIMEOUT_MS: 300 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
    await once(socket, 'data');
    const answered = Date.now();
    socket.resume();
    await once(socket, 'close');
    const idle = Date.now() - answered;
    expect(idle).toBeGreaterThanOrEqual(250);
    expect(idle).toBeLessThan(2000);
  });
});
