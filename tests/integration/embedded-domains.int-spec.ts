import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Domain } from '@shortener/contracts';
import { startDnsResponder, type DnsResponder } from '@shortener/testkit';
import { signInLocally, startCopied, stop, type Embedded } from './embedded-app';

// Branded domains in the embedded mode: the links schema's migration on embedded
// PostgreSQL, and a verification asking the DNS server DNS_SERVERS names.

const XHR = { 'X-Requested-With': 'XMLHttpRequest' };

describe('branded domains in the embedded mode', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-domains-'));
  let dns: DnsResponder;
  let app: Embedded;

  beforeAll(async () => {
    dns = await startDnsResponder();
    app = await startCopied(dataDir, { DNS_SERVERS: dns.server });
  });

  afterAll(async () => {
    if (app) await stop(app);
    await dns?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds a domain, verifies it by its TXT record, lists, removes and restores it', async () => {
    const browser = await signInLocally(app, 'Domain Tester');
    const call = (method: string, suffix: string, body?: unknown) =>
      browser.fetch(`${app.url}/api/domains${suffix}`, {
        method,
        headers: { ...XHR, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const host = 'go.embedded.example';

    const added = await call('POST', '', { host: 'Go.Embedded.Example' });
    expect(added.status).toBe(201);
    const domain = (await added.json()) as Domain;
    expect(domain).toMatchObject({ host, verified: false });
    expect((await call('POST', `/${host}/verify`)).status).toBe(422);

    dns.setTxt(domain.verification.name, [domain.verification.value]);
    const verified = await call('POST', `/${host}/verify`);
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({ ...domain, verified: true });

    expect((await call('DELETE', `/${host}`)).status).toBe(204);
    expect(await (await call('GET', '')).json()).toEqual([]);
    const restored = await call('POST', `/${host}/restore`);
    expect(restored.status).toBe(200);
    expect(await (await call('GET', '')).json()).toEqual([{ ...domain, verified: true }]);
  });
});
