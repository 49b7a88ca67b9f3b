import type { IncomingMessage } from 'node:http';
import express from 'express';
import { clientIp, clientIpFromEdge, trustedProxies } from './client-ip';
import { compileTrustedProxies } from './trusted-proxies';

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('clientIp', () => {
  const proxies = trustedProxies(['10.0.0.0/8', '127.0.0.1']);

  it('uses the socket address when no proxy is trusted, whatever the header says', () => {
    const none = trustedProxies([]);
    expect(clientIp(request('203.0.113.9', '1.2.3.4'), none)).toBe('203.0.113.9');
  });

  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(clientIp(request('203.0.113.9', '1.2.3.4'), proxies)).toBe('203.0.113.9');
  });

  it('walks X-Forwarded-For from the right past trusted proxies', () => {
    const req = request('127.0.0.1', '6.6.6.6, 198.51.100.7, 10.1.2.3');
    expect(clientIp(req, proxies)).toBe('198.51.100.7');
  });

  it('does not believe a garbage hop', () => {
    expect(clientIp(request('10.0.0.5', 'not-an-ip'), proxies)).toBe('10.0.0.5');
  });

  it('reports IPv4-mapped IPv6 socket addresses as IPv4', () => {
    expect(clientIp(request('::ffff:192.0.2.1'), proxies)).toBe('192.0.2.1');
  });

  it('answers the same for an address asked again, and past the memo bound', () => {
    const req = request('127.0.0.1', '198.51.100.7');
    expect(clientIp(req, proxies)).toBe('198.51.100.7');
    expect(clientIp(req, proxies)).toBe('198.51.100.7');
    for (let i = 0; i < 5000; i += 1) {
      expect(proxies.has(`10.0.${i >> 8}.${i & 255}`)).toBe(true);
      expect(proxies.has(`11.0.${i >> 8}.${i & 255}`)).toBe(false);
    }
    expect(clientIp(request('203.0.113.9', '1.2.3.4'), proxies)).toBe('203.0.113.9');
    expect(clientIp(req, proxies)).toBe('198.51.100.7');
  });

  it('rejects a configured entry that is not an address', () => {
    expect(() => trustedProxies(['proxy.local'])).toThrow('TRUSTED_PROXIES');
  });

  it('reads `loopback` as the gateway does: 127.0.0.0/8 and ::1 are trusted proxies', () => {
    const loopback = trustedProxies(['loopback']);
    expect(clientIp(request('127.0.0.1', '198.51.100.7'), loopback)).toBe('198.51.100.7');
    expect(clientIp(request('::1', '198.51.100.7'), loopback)).toBe('198.51.100.7');
    expect(clientIp(request('::ffff:127.0.0.1', '2001:db8::7'), loopback)).toBe('2001:db8::7');
    expect(clientIp(request('203.0.113.9', '198.51.100.7'), loopback)).toBe('203.0.113.9');
  });
});

describe("clientIpFromEdge (a request on the edge's Unix socket)", () => {
  /** A Unix socket has no peer address. */
  function onSocket(forwardedFor?: string): IncomingMessage {
    return {
      socket: {},
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    } as unknown as IncomingMessage;
  }

  it('believes the address the edge wrote, with no proxy configured', () => {
    expect(clientIpFromEdge(onSocket('203.0.113.9'), trustedProxies([]))).toBe('203.0.113.9');
    expect(clientIpFromEdge(onSocket('::ffff:192.0.2.1'), trustedProxies([]))).toBe('192.0.2.1');
  });

  it('walks the rest of the header as from any trusted proxy', () => {
    const req = onSocket('6.6.6.6, 198.51.100.7, 10.1.2.3');
    expect(clientIpFromEdge(req, trustedProxies(['10.0.0.0/8']))).toBe('198.51.100.7');
    expect(clientIpFromEdge(req, trustedProxies([]))).toBe('10.1.2.3');
  });

  it('answers unknown when the edge named no usable address', () => {
    expect(clientIpFromEdge(onSocket(), trustedProxies([]))).toBe('unknown');
    expect(clientIpFromEdge(onSocket(''), trustedProxies([]))).toBe('unknown');
    expect(clientIpFromEdge(onSocket('not-an-ip'), trustedProxies([]))).toBe('unknown');
  });

  it('is what clientIp says for the same header from a trusted peer', () => {
    const trusted = trustedProxies(['10.0.0.0/8', '127.0.0.1']);
    for (const header of ['198.51.100.7', '6.6.6.6, 198.51.100.7, 10.0.0.2', '2001:db8::9']) {
      expect(clientIpFromEdge(onSocket(header), trusted)).toBe(
        clientIp(request('127.0.0.1', header), trusted),
      );
    }
  });
});

describe('clientIp answers as the gateway does', () => {
  /** The gateway's address: Express's req.ip under the same TRUSTED_PROXIES, IPv4 unmapped. */
  function gatewayIp(entries: string[], remoteAddress: string, forwardedFor?: string): string {
    const app = express();
    app.set('trust proxy', compileTrustedProxies(entries));
    const req = Object.create(app.request as object, {
      socket: { value: { remoteAddress } },
      headers: {
        value: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      },
    }) as express.Request;
    const ip = req.ip ?? '';
    return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
  }

  const lists: string[][] = [
    [],
    ['loopback'],
    ['uniquelocal'],
    ['linklocal', '192.0.2.1'],
    ['10.0.0.0/8', '::1'],
    ['2001:db8::/32', '127.0.0.1'],
  ];
  const peers = [
    '127.0.0.1',
    '127.0.0.2',
    '::1',
    '::ffff:127.0.0.1',
    '10.1.2.3',
    '::ffff:10.1.2.3',
    '192.0.2.1',
    '203.0.113.9',
    'fe80::1',
    '2001:db8::5',
  ];
  const headers = [
    undefined,
    '198.51.100.7',
    '6.6.6.6, 198.51.100.7, 10.0.0.2',
    '2001:db8::9, ::1',
    '198.51.100.7, 127.0.0.2',
    '198.51.100.7,::ffff:10.0.0.2',
    '169.254.1.1, 2001:db8::1',
  ];
  it.each(lists.map((entries) => ({ entries })))(
    'for TRUSTED_PROXIES=$entries, every peer and X-Forwarded-For in the table',
    ({ entries }) => {
      const trusted = trustedProxies(entries);
      for (const peer of peers) {
        for (const header of headers) {
          expect({ peer, header, ip: clientIp(request(peer, header), trusted) }).toEqual({
            peer,
            header,
            ip: gatewayIp(entries, peer, header),
          });
        }
      }
    },
  );
});
