import type { IncomingMessage } from 'node:http';
import pino from 'pino';
import { Registry } from 'prom-client';
import { isDirectLoopbackPeer, opsRoutes, opsServedOnMainPort } from './ops-http';

function request(peer: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

describe('isDirectLoopbackPeer', () => {
  it.each(['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1'])('accepts %s', (peer) => {
    expect(isDirectLoopbackPeer(request(peer))).toBe(true);
  });

  it.each(['192.0.2.2', '10.0.0.1', 'fd00::2', '::ffff:192.0.2.2', '::', ''])(
    'refuses the peer %s',
    (peer) => {
      expect(isDirectLoopbackPeer(request(peer))).toBe(false);
    },
  );

  it.each(['x-forwarded-for', 'forwarded', 'x-real-ip'])(
    'refuses a loopback peer passing on a request from elsewhere (%s)',
    (header) => {
      expect(isDirectLoopbackPeer(request('127.0.0.1', { [header]: '203.0.113.7' }))).toBe(false);
    },
  );
});

describe('opsServedOnMainPort', () => {
  it('never serves them on the main port once OPS_PORT is set', () => {
    expect(opsServedOnMainPort(request('127.0.0.1'), { HOST: '127.0.0.1' })).toBe(true);
    expect(opsServedOnMainPort(request('127.0.0.1'), { HOST: '127.0.0.1', OPS_PORT: 9090 })).toBe(
      false,
    );
  });
});

describe('nextScrape', () => {
  it('resolves once /metrics has been answered after the call, or false at its limit', async () => {
    const ops = opsRoutes(
      'test',
      { registry: new Registry(), checks: [], isShuttingDown: () => true },
      { HOST: '127.0.0.1', OPS_PORT: 0 },
      pino({ level: 'silent' }),
    );
    const port = await ops.listen();
    try {
      expect(await ops.nextScrape(50)).toBe(false);
      const scraped = ops.nextScrape(5000);
      await fetch(`http://127.0.0.1:${port}/readyz`);
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await scraped).toBe(true);
    } finally {
      await ops.close();
    }
  });
});
