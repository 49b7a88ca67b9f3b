import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputBundle } from 'rollup';
import {
  INITIAL_JS_BUDGET_BYTES,
  initialJsBudget,
  initialScripts,
} from '../vite/initial-js-budget';

const FRONTEND = path.resolve(fileURLToPath(import.meta.url), '../..');
const rootPackage = JSON.parse(readFileSync(path.resolve(FRONTEND, '../package.json'), 'utf8')) as {
  repository?: { url?: string };
};

describe('the production build', () => {
  // Built elsewhere: frontend/dist, which the gateway serves, is left alone.
  const outDir = mkdtempSync(path.join(tmpdir(), 'frontend-build-'));
  let run: SpawnSyncReturns<string>;
  const read = (file: string) => readFileSync(path.join(outDir, file), 'utf8');

  beforeAll(() => {
    const manifest = createRequire(path.join(FRONTEND, 'package.json')).resolve(
      'vite/package.json',
    );
    const vite = path.join(path.dirname(manifest), 'bin/vite.js');
    run = spawnSync(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir'], {
      cwd: FRONTEND,
      encoding: 'utf8',
      // Vitest sets NODE_ENV=test, which would build React's development code.
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }, 60_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  const jsChunks = () =>
    readdirSync(path.join(outDir, 'assets'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => ({ name, code: read(path.join('assets', name)) }));

  it("carries the root package.json's repository URL for the footer", () => {
    expect(run.status, run.stderr).toBe(0);
    const assets = path.join(outDir, 'assets');
    const code = readdirSync(assets)
      .filter((name) => name.endsWith('.js'))
      .map((name) => read(path.join('assets', name)))
      .join('\n');
    expect(rootPackage.repository?.url).toMatch(/^https:\/\//);
    expect(code).toContain(JSON.stringify(rootPackage.repository?.url));
  });

  it('prints what JavaScript / loads, gzipped, and keeps it within the budget', () => {
    expect(run.status, run.stderr).toBe(0);
    const scripts = initialScripts(read('index.html'));
    const bytes = scripts
      .map((file) => gzipSync(read(file), { level: 9 }).length)
      .reduce((sum, size) => sum + size, 0);
    expect(run.stdout).toContain(
      `JavaScript loaded by / (${scripts.join(', ')}): ${(bytes / 1000).toFixed(2)} kB gzipped`,
    );
    expect(bytes).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);
  });

  it('puts the Stats section in a chunk of its own, its QR encoder in a worker: neither in what / loads nor in the detail page', () => {
    expect(run.status, run.stderr).toBe(0);
    const initial = initialScripts(read('index.html')).map(read).join('\n');
    const detail = jsChunks().find(({ name }) => name.startsWith('link-detail-'));
    expect(detail?.code).toContain('Visitor log');
    for (const code of [initial, detail?.code ?? '']) {
      expect(code).not.toContain('No visits yet');
      expect(code).not.toContain('Download CSV');
      expect(code).not.toContain('Unique visitors');
      // uqr's own error message.
      expect(code).not.toContain('Data too long');
    }
    // The section's own words (its CSV button and totals are shared with the analytics page).
    const stats = jsChunks().filter(({ code }) => code.includes('No visits yet'));
    expect(stats).toHaveLength(1);
    expect(stats[0]?.code).not.toContain('Data too long');
    // The worker that encodes in the browser, and the chunk that does it where there are no
    // workers (jsdom).
    expect(
      jsChunks()
        .filter(({ code }) => code.includes('Data too long'))
        .map(({ name }) => name.slice(0, 'qr-worker-'.length))
        .sort(),
    ).toEqual(['qr-matrix-', 'qr-worker-']);
    expect(stats[0]?.code).toMatch(/new Worker\(new URL\("\/assets\/qr-worker-[\w-]+\.js"/);
  });

  it('writes the home page prerendered, signed out and signed in, and an empty page for the other paths, each loading the same script', () => {
    expect(run.status, run.stderr).toBe(0);
    const home = read('index.html');
    const signedIn = read('index.signed-in.html');
    const app = read('app.html');
    expect(home).toMatch(/<div id="root" data-shell="signed-out"><a href="#main"/);
    expect(home).toMatch(/<header class="top-bar[^"]*">.*<\/header>/s);
    // SPEC's profile link with its generic icon, signed out too, beside 'Sign in'.
    const profileLink = /<a [^>]*aria-label="Profile"[^>]*>/.exec(home)?.[0];
    expect(profileLink).toContain('class="top-bar__profile"');
    expect(profileLink).toContain('href="/profile"');
    expect(home).toMatch(/<h1 [^>]*>Shorten your URL<\/h1>/);
    expect(home).toMatch(/<label [^>]*>URL to shorten<\/label><input [^>]*type="url"/);
    expect(home).toContain('>Sign in</a>');
    expect(home).toContain('Login required to set expiry beyond 7 days.');
    expect(home).toMatch(/<footer class="footer">.*Privacy policy<\/a><\/nav><\/footer><\/div>/s);
    expect(signedIn).toMatch(/<div id="root" data-shell="signed-in">/);
    expect(signedIn).toContain('aria-label="Profile"');
    expect(signedIn).toContain('class="alias__input"');
    expect(signedIn).not.toContain('Login required to set expiry beyond 7 days.');
    expect(app).toContain('<div id="root"></div>');
    for (const page of [signedIn, app]) expect(initialScripts(page)).toEqual(initialScripts(home));
    // The home pages carry the stylesheet the other pages link to, so that they paint at once.
    const stylesheet =
      /<link rel="stylesheet" crossorigin href="\/(assets\/index-[\w-]+\.css)">/.exec(app)?.[1];
    expect(stylesheet).toBeDefined();
    for (const page of [home, signedIn]) {
      expect(page).not.toContain('rel="stylesheet"');
      expect(page).toContain(`<style>${read(stylesheet ?? '')}</style>`);
    }
  });

  it("writes the profile and settings pages' frame for a signed-in visitor: top bar, the wait, footer, the script and the page's own chunks fetched after what paints", () => {
    expect(run.status, run.stderr).toBe(0);
    const home = read('index.html');
    const stylesheet =
      /<link rel="stylesheet" crossorigin href="\/(assets\/index-[\w-]+\.css)">/.exec(
        read('app.html'),
      )?.[1];
    expect(stylesheet).toBeDefined();
    const list = read('profile.signed-in.html');
    const link = read('link.signed-in.html');
    const settings = read('settings.signed-in.html');
    for (const page of [list, link, settings]) {
      // Not marked with a session: main.tsx renders the page anew over it, not hydrates it.
      expect(page).toMatch(/<div id="root"><a href="#main" class="skip-link">/);
      expect(page).toContain('aria-label="Profile"');
      expect(page).not.toContain('>Sign in</a>');
      expect(page).toMatch(/<main id="main"[^>]*>.*role="status".*Loading\.\.\.\.<\/p>.*<\/main>/s);
      expect(page).toMatch(/<footer class="footer">.*Privacy policy<\/a><\/nav><\/footer><\/div>/s);
      expect(page).toContain(`<style>${read(stylesheet ?? '')}</style>`);
      // The entry's script first, as on the home page, then the page's chunks beside it.
      expect(initialScripts(page)[0]).toEqual(initialScripts(home)[0]);
      for (const tag of page.match(/<(script|link rel="modulepreload")\b[^>]*>/g) ?? []) {
        expect(tag).toContain('fetchpriority="low"');
      }
    }
    // Each page's chunk and what it imports, modulepreloaded: a chunk's code names the chunks
    // it imports.
    const preloaded = (page: string) => initialScripts(page).slice(1);
    const chunkOf = (page: string, words: string) =>
      preloaded(page).filter((file) => read(file).includes(words));
    expect(chunkOf(list, 'No urls to display')).toHaveLength(1);
    expect(chunkOf(link, 'Visitor log')).toHaveLength(1);
    expect(chunkOf(link, 'No visits yet')).toHaveLength(1);
    expect(chunkOf(settings, 'API keys')).not.toHaveLength(0);
    for (const page of [list, link, settings]) {
      for (const file of preloaded(page)) {
        for (const [, imported] of read(file).matchAll(/from"\.\/([\w-]+\.js)"/g)) {
          if (`assets/${imported}` !== initialScripts(home)[0]) {
            expect(preloaded(page)).toContain(`assets/${imported}`);
          }
        }
      }
    }
    // A link's page keeps the screen's height while it comes (lazyPage's tall), the list not.
    expect(link).toContain('class="tall-pending"');
    expect(list).not.toContain('class="tall-pending"');
    // Each page its own frame: the top bar marks 'Tracking' as the page only on the list's.
    expect(list).toContain('aria-current="page"');
    expect(settings).not.toContain('aria-current="page"');
  });

  it('asks for userData from the signed-in frames ahead of the app, by a script of its own the home pages do not load', () => {
    expect(run.status, run.stderr).toBe(0);
    const entry = initialScripts(read('index.html'))[0] ?? '';
    const script =
      /<script async fetchpriority="low" src="\/(assets\/user-request-[\w-]+\.js)"><\/script>/;
    const file = script.exec(read('profile.signed-in.html'))?.[1] ?? '';
    expect(file).not.toBe('');
    for (const name of ['profile', 'link', 'settings']) {
      const page = read(`${name}.signed-in.html`);
      expect(script.exec(page)?.[1]).toBe(file);
      // Ahead of the entry's script, so that it comes and runs first.
      expect(page.indexOf(file)).toBeLessThan(page.indexOf(entry));
    }
    for (const page of ['index.html', 'index.signed-in.html', 'app.html']) {
      expect(read(page)).not.toContain('user-request-');
    }
    // One classic script that imports nothing, asking as the app asks (src/user-request.ts).
    const code = read(file);
    expect(code).not.toMatch(/\bimport\b/);
    expect(code).toContain('"/api/user"');
    expect(code).toContain('X-Requested-With');
    expect(code).toContain('credentials:"same-origin"');
    expect(code).not.toContain('react');
  });

  it("preloads on a frame's page the stylesheets its chunks wait for, as Vite's loader asks for them", () => {
    expect(run.status, run.stderr).toBe(0);
    for (const name of ['profile', 'link', 'settings']) {
      const page = read(`${name}.signed-in.html`);
      const wanted = initialScripts(page)
        .slice(1)
        .flatMap((file) =>
          [...read(file).matchAll(/"(assets\/[\w-]+\.css)"/g)].map(([, css]) => css),
        );
      for (const css of wanted) {
        expect(page).toContain(
          `<link rel="preload" as="style" fetchpriority="low" crossorigin href="/${css}">`,
        );
      }
      if (name === 'link') expect(wanted).not.toEqual([]);
    }
  });

  it("never has a chunk fetch the entry's stylesheet again: every page carries it, inline or linked", () => {
    expect(run.status, run.stderr).toBe(0);
    const stylesheet = /<link rel="stylesheet" crossorigin href="\/(assets\/[\w-]+\.css)">/.exec(
      read('app.html'),
    )?.[1];
    expect(stylesheet).toBeDefined();
    expect(jsChunks().filter(({ code }) => code.includes(stylesheet ?? ''))).toEqual([]);
    // A chunk's own stylesheet still comes with it.
    const detail = jsChunks().find(({ name }) => name.startsWith('link-detail-'));
    expect(detail?.code).toMatch(/"assets\/stats-section-[\w-]+\.css"/);
  });

  it('leaves zod and the pages other than home out of what / loads', () => {
    expect(run.status, run.stderr).toBe(0);
    const code = initialScripts(read('index.html')).map(read).join('\n');
    expect(code).not.toMatch(/ZodError|_zod/);
    expect(code).not.toContain('No visitors found');
    expect(code).not.toContain('Acceptable use');
    expect(code).toContain('Shorten your URL');
  });
});

describe('the initial JavaScript budget', () => {
  const html = [
    '<script type="module" crossorigin src="/assets/index.js"></script>',
    '<link rel="modulepreload" crossorigin href="/assets/vendor.js">',
    '<link rel="stylesheet" href="/assets/index.css">',
  ].join('');
  const bundle = {
    'index.html': { type: 'asset', fileName: 'index.html', source: html },
    'assets/index.js': { type: 'chunk', fileName: 'assets/index.js', code: 'a'.repeat(5000) },
    'assets/vendor.js': { type: 'chunk', fileName: 'assets/vendor.js', code: 'b'.repeat(5000) },
    'assets/page.js': { type: 'chunk', fileName: 'assets/page.js', code: 'c'.repeat(5000) },
  } as unknown as OutputBundle;

  function write(budget: number): void {
    const plugin = initialJsBudget(budget);
    const hook = plugin.writeBundle as (
      this: { error(message: string): never },
      options: unknown,
      output: OutputBundle,
    ) => void;
    hook.call(
      {
        error(message) {
          throw new Error(message);
        },
      },
      {},
      bundle,
    );
  }

  it('counts the module scripts and modulepreloads of index.html, not the split-off pages', () => {
    expect(initialScripts(html)).toEqual(['assets/index.js', 'assets/vendor.js']);
  });

  it('fails the build above the budget and passes it within', () => {
    expect(() => write(10)).toThrow(
      /Over budget: JavaScript loaded by \/ \(assets\/index.js, assets\/vendor.js\)/,
    );
    expect(() => write(10_000)).not.toThrow();
  });
});
