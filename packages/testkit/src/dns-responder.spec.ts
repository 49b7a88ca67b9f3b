import { Resolver } from 'node:dns/promises';
import { startDnsResponder, type DnsResponder } from './dns-responder';

describe('startDnsResponder', () => {
  let dns: DnsResponder;
  let resolver: Resolver;

  beforeAll(async () => {
    dns = await startDnsResponder();
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
  });

  afterAll(() => dns.stop());

  it('answers the TXT records set for a name, in any letter case, a long one whole', async () => {
    const long = 'x'.repeat(600);
    dns.setTxt('_check.Example.TEST', ['first', long]);
    const records = await resolver.resolveTxt('_check.example.test');
    expect(records.map((strings) => strings.join(''))).toEqual(['first', long]);
    expect(await resolver.resolveTxt('_CHECK.example.test')).toHaveLength(2);
  });

  it('answers NODATA for a name set without records, NXDOMAIN for one not set', async () => {
    dns.setTxt('empty.example.test', []);
    await expect(resolver.resolveTxt('empty.example.test')).rejects.toMatchObject({
      code: 'ENODATA',
    });
    await expect(resolver.resolveTxt('nothing.example.test')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });
});
