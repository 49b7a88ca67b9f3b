import type { Logger } from 'pino';
import { checkTargetUrl } from '@shortener/link-cache';
import { loadLinksConfig } from '../config';
import { machineNames, OwnHostsService } from './own-hosts.service';
import { hostname } from 'node:os';

jest.mock('node:dns/promises', () => ({
  lookup: (name: string) =>
    name === 'sho.rt'
      ? Promise.resolve([
          { address: '203.0.113.7', family: 4 },
          { address: '2001:db8::7', family: 6 },
        ])
      : Promise.reject(new Error(`getaddrinfo ENOTFOUND ${name}`)),
}));

describe('OwnHostsService', () => {
  it('refuses the addresses our host names resolve to, and tells when a name does not resolve', async () => {
    const warnings: string[] = [];
    const logger = { warn: (_: unknown, message: string) => warnings.push(message) };
    const config = loadLinksConfig({
      INTERNAL_API_SECRET: 'a-secret-of-enough-length',
      PUBLIC_ORIGIN: 'https://sho.rt',
      SHORT_LINK_HOSTS: 'go.invalid:8443',
    });
    const own = new OwnHostsService(config, logger as unknown as Logger);
    expect(checkTargetUrl('http://203.0.113.7/r/abcdefg', own.hosts).ok).toBe(true);
    await own.refresh();
    for (const url of ['http://203.0.113.7/r/abcdefg', 'http://[2001:db8::7]:8080/r/abcdefg']) {
      expect(checkTargetUrl(url, own.hosts)).toEqual({
        ok: false,
        reason: 'refused',
        message: 'Short links of this service cannot be shortened again.',
      });
    }
    expect(checkTargetUrl('https://go.invalid/x', own.hosts).ok).toBe(false);
    expect(checkTargetUrl('https://203.0.113.8/', own.hosts).ok).toBe(true);
    expect(warnings).toHaveLength(1);
  });
});

describe('machineNames', () => {
  it("is the host name and the hosts file's names for loopback and this machine's addresses", () => {
    const hostsFile = [
      '127.0.0.1 localhost',
      '127.0.1.1   build-box.example build-box # Debian names the machine here',
      '::1 ip6-localhost ip6-loopback',
      '10.0.0.5 lan-name',
      '203.0.113.9 elsewhere.example',
      '# 127.0.0.1 commented-out',
      '',
    ].join('\n');
    expect(machineNames(hostsFile, ['10.0.0.5'])).toEqual([
      hostname(),
      'localhost',
      'build-box.example',
      'build-box',
      'ip6-localhost',
      'ip6-loopback',
      'lan-name',
    ]);
  });
});
