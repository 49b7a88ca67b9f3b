import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REQUESTED_WITH_HEADER } from '@shortener/contracts';
import { REDIRECT_NOT_FOUND, requestWithHost } from '../api/support/host-request';
import { startCopied, stop, type Embedded } from './embedded-app';

// `npm start` is its own edge: a request whose Host is not one of its own (a branded
// domain's) goes, whatever its path, to its redirect handler with that Host; its own hosts
// (PUBLIC_ORIGIN's, SHORT_LINK_HOSTS', localhost and addresses) answer as before.

describe('the embedded mode, for a branded domain', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-branded-'));
  let app: Embedded;

  beforeAll(async () => {
    app = await startCopied(dataDir, { SHORT_LINK_HOSTS: 'links.example.test' });
  }, 120_000);

  afterAll(async () => {
    if (app) await stop(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends any path of another host to the redirect handler: its 404 for a link it does not have', async () => {
    // The gateway would answer /api/user 401 in JSON and / with the web app.
    for (const page of ['/spring', '/api/user', '/']) {
      const answer = await requestWithHost(app.url, 'go.example.test', page, {
        headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' },
      });
      expect({ page, status: answer.status }).toEqual({ page, status: 404 });
      expect(answer.text).toMatch(REDIRECT_NOT_FOUND);
    }
  });

  it('answers its own hosts as before', async () => {
    for (const host of [`localhost:${app.port}`, `127.0.0.1:${app.port}`, 'links.example.test']) {
      const user = await requestWithHost(app.url, host, '/api/user', {
        headers: { [REQUESTED_WITH_HEADER]: 'XMLHttpRequest' },
      });
      expect({ host, status: user.status }).toEqual({ host, status: 401 });
    }
  });
});
