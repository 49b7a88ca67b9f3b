/// <reference types="vitest/config" />
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { preact } from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';
import { repositoryWebUrl } from './src/lib/repository-url';
import { initialJsBudget } from './vite/initial-js-budget';
import { prerenderHome } from './vite/prerender-home';
import { webContracts } from './vite/web-contracts';

const BACKEND = 'http://localhost:8080';

/** The footer's source link: the root package.json's `repository`, its one source. */
const REPOSITORY_URL = repositoryWebUrl(
  (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      repository?: unknown;
    }
  ).repository,
);

/**
 * A file of React Router's ES modules build, for the tests: resolved for Node, React Router
 * names its CommonJS build, whose `require('react')` no alias reaches (vitest-dev/vitest#9129).
 */
const reactRouterModule = (file: string) =>
  fileURLToPath(new URL(`../node_modules/react-router/dist/development/${file}`, import.meta.url));

/** After `vite build`, prints what each emitted JS, CSS and HTML file weighs gzipped. */
function gzipSizeReport(): Plugin {
  return {
    name: 'gzip-size-report',
    // The client's files only, not the prerender's own build (vite/prerender-home.ts).
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    writeBundle(_options, bundle) {
      const rows = Object.values(bundle)
        .filter((file) => /\.(js|css|html)$/.test(file.fileName))
        .map((file) => {
          const raw = Buffer.from(file.type === 'chunk' ? file.code : file.source);
          return { name: file.fileName, raw: raw.length, gzip: gzipSync(raw, { level: 9 }).length };
        })
        .sort((a, b) => b.gzip - a.gzip);
      const kb = (bytes: number) => `${(bytes / 1000).toFixed(2)} kB`.padStart(11);
      const width = Math.max(...rows.map((row) => row.name.length), 5);
      const lines = rows.map((row) => `  ${row.name.padEnd(width)} ${kb(row.raw)} ${kb(row.gzip)}`);
      const sum = (key: 'raw' | 'gzip') => rows.reduce((total, row) => total + row[key], 0);
      console.log(
        [
          '',
          `Production bundle size (gzip -9):`,
          `  ${'file'.padEnd(width)} ${'raw'.padStart(11)} ${'gzipped'.padStart(11)}`,
          ...lines,
          `  ${'total'.padEnd(width)} ${kb(sum('raw'))} ${kb(sum('gzip'))}`,
          '',
        ].join('\n'),
      );
    },
  };
}

export default defineConfig({
  plugins: [webContracts(), preact(), prerenderHome(), gzipSizeReport(), initialJsBudget()],
  define: { __REPOSITORY_URL__: JSON.stringify(REPOSITORY_URL) },
  resolve: {
    alias: [
      // Shared API types and constants straight from source, for the tests: no build of the
      // package needed. The app itself imports '@shortener/contracts/web' (vite/web-contracts.ts).
      {
        find: /^@shortener\/contracts$/,
        replacement: fileURLToPath(new URL('../packages/contracts/src/index.ts', import.meta.url)),
      },
    ],
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/login', '/logout', '/auth', '/r/'].map((path) => [path, BACKEND]),
    ),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // React Router through Vite, not loaded by Node: Node's `require('react')` would give it
    // React itself, where the app renders with Preact (the aliases reach transformed code only).
    server: { deps: { inline: [/react-router/] } },
    alias: [
      { find: /^react-router-dom$/, replacement: reactRouterModule('index.mjs') },
      { find: /^react-router\/dom$/, replacement: reactRouterModule('dom-export.mjs') },
    ],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
