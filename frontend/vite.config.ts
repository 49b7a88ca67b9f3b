/// <reference types="vitest/config" />
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
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
  plugins: [webContracts(), react(), prerenderHome(), gzipSizeReport(), initialJsBudget()],
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
    restoreMocks: true,
    unstubGlobals: true,
  },
});
