import type { IncomingMessage } from 'node:http';
import { clientIp, trustedProxies } from './client-ip';

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
});
