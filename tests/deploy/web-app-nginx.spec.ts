import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WEB_APP_PAGES, webAppPage } from '@shortener/contracts';
import { freePort } from '@shortener/testkit';
import { readRepoFile, REPO_ROOT } from './support/repo';

/** The web app as `npm run build` leaves it, which the image copies in. */
const BUILT = path.join(REPO_ROOT, 'frontend/dist');

const nginxBinary = ['nginx', '/usr/sbin/nginx'].find(
  (candidate) => spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0,
);

/**
 * frontend/nginx.conf as the web app's image runs it (Kubernetes routes page paths to it), on
 * a free port and over the built files instead of the image's folder.
 */
describe("the web app's nginx (frontend/nginx.conf)", () => {
  let dir: string;
  let nginx: ChildProcess;
  let origin: string;

  beforeAll(async () => {
    if (!nginxBinary) throw new Error('No nginx (Debian: apt-get install nginx).');
    const port = await freePort();
    dir = mkdtempSync(path.join(tmpdir(), 'web-app-nginx-'));
    const site = readRepoFile('frontend/nginx.conf')
      .replace(/^(\s*)listen 8080;$/m, `$1listen 127.0.0.1:${port};`)
      .replace(/^(\s*)root \/usr\/share\/nginx\/html;$/m, `$1root ${BUILT};`);
    expect(site).toContain(`root ${BUILT};`);
    writeFileSync(path.join(dir, 'site.conf'), site);
    const temp = (name: string) => path.join(dir, name);
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'worker_processes 1;',
        `pid ${temp('nginx.pid')};`,
        'error_log stderr warn;',
        'events {}',
        'http {',
        '  include /etc/nginx/mime.types;',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (name) => `  ${name}_temp_path ${temp(name)};`,
        ),
        `  include ${temp('site.conf')};`,
        '}',
      ].join('\n'),
    );
    nginx = spawn(nginxBinary, ['-p', dir, '-e', 'stderr', '-c', temp('nginx.conf')], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    origin = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (nginx.exitCode !== null) throw new Error('nginx stopped; see its errors above');
      try {
        await fetch(`${origin}/healthz`);
        break;
      } catch {
        if (Date.now() > deadline) throw new Error('nginx did not listen');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });

  afterAll(async () => {
    if (nginx?.exitCode === null) {
      const ended = once(nginx, 'exit');
      nginx.kill('SIGQUIT');
      await ended;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const page = (name: string) => readFileSync(path.join(BUILT, name), 'utf8');

  it('answers / with the home page prerendered for the visitor, by the loggedIn cookie', async () => {
    for (const [headers, file] of [
      [{}, WEB_APP_PAGES.home],
      [{ cookie: 'loggedIn=false' }, WEB_APP_PAGES.home],
      [{ cookie: 'other=1; loggedIn=true' }, WEB_APP_PAGES.homeSignedIn],
    ] as const) {
      const response = await fetch(`${origin}/?ref=mail`, { headers });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(page(file));
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('vary')).toMatch(/\bCookie\b/);
    }
    expect(page(WEB_APP_PAGES.home)).toContain('data-shell="signed-out"');
    expect(page(WEB_APP_PAGES.homeSignedIn)).toContain('data-shell="signed-in"');
  });

  it('answers the profile and settings pages with their frame for a signed-in visitor, the empty page for anyone else', async () => {
    for (const pagePath of ['/profile', '/profile/abc1234', '/settings']) {
      for (const signedIn of [false, true]) {
        const response = await fetch(`${origin}${pagePath}?ref=mail`, {
          headers: signedIn ? { cookie: 'other=1; loggedIn=true' } : {},
        });
        expect(response.status).toBe(200);
        // The page webAppPage (packages/contracts) names, as the gateway serves it.
        expect(await response.text()).toBe(page(webAppPage(pagePath, signedIn)));
        expect(response.headers.get('vary')).toMatch(/\bCookie\b/);
      }
    }
    expect(webAppPage('/profile', true)).toBe(WEB_APP_PAGES.profileSignedIn);
    expect(webAppPage('/profile/abc1234', true)).toBe(WEB_APP_PAGES.linkSignedIn);
    expect(webAppPage('/settings', true)).toBe(WEB_APP_PAGES.settingsSignedIn);
    for (const frame of [
      WEB_APP_PAGES.profileSignedIn,
      WEB_APP_PAGES.linkSignedIn,
      WEB_APP_PAGES.settingsSignedIn,
    ]) {
      expect(page(frame)).toContain('aria-label="Profile"');
      expect(page(frame)).toContain('Loading....');
    }
  });

  it("answers every other page path with the app's empty page, and files as themselves", async () => {
    for (const pagePath of [
      '/tc',
      '/no/such/page',
      '/profile/abc1234/more',
      '/profile/',
      '/settings/keys',
    ]) {
      for (const headers of [{}, { cookie: 'loggedIn=true' }] as Array<Record<string, string>>) {
        const response = await fetch(`${origin}${pagePath}`, { headers });
        expect(response.status).toBe(200);
        expect(await response.text()).toBe(page(WEB_APP_PAGES.app));
        expect(response.headers.get('vary') ?? '').not.toMatch(/\bCookie\b/);
      }
    }
    expect(page(WEB_APP_PAGES.app)).toContain('<div id="root"></div>');
    const robots = await fetch(`${origin}/robots.txt`);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await fetch(`${origin}/assets/missing.js`)).status).toBe(404);
  });
});
