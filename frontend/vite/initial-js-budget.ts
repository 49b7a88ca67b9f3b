import { gzipSync } from 'node:zlib';
import type { OutputBundle } from 'rollup';
import type { Plugin } from 'vite';

/**
 * The most JavaScript, gzipped, that the home page may load: the build fails above it, so
 * nothing heavy (zod, a page that should be its own chunk, React DOM in place of Preact)
 * slips back into `/` unnoticed. It loads 33.7 kB (94.8 on React DOM 19, which alone weighed
 * 68.5; issue 17's goal was 80). React Router's declarative routes (router.tsx) weigh about
 * 15 kB, its data router twice that.
 */
export const INITIAL_JS_BUDGET_BYTES = 40_000;

const gzipped = (text: string | Uint8Array): number => gzipSync(text, { level: 9 }).length;

/**
 * The JavaScript files index.html loads itself: its module scripts and what it modulepreloads.
 * Routes split off with import() are not among them.
 */
export function initialScripts(html: string): string[] {
  const files = new Set<string>();
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const isModule = /^<script\b/.test(tag) && /\btype="module"/.test(tag);
    const isPreload = /^<link\b/.test(tag) && /\brel="modulepreload"/.test(tag);
    const url = /\b(?:src|href)="\/?([^"]+)"/.exec(tag)?.[1];
    if ((isModule || isPreload) && url) files.add(url);
  }
  return [...files];
}

/** What those files weigh gzipped, file by file, from the finished bundle. */
function initialJsSize(bundle: OutputBundle): { files: string[]; bytes: number } {
  const html = bundle['index.html'];
  if (html?.type !== 'asset') throw new Error('The build emitted no index.html.');
  const files = initialScripts(String(html.source));
  let bytes = 0;
  for (const file of files) {
    const output = bundle[file];
    if (!output) throw new Error(`index.html loads ${file}, which the build did not emit.`);
    bytes += gzipped(output.type === 'chunk' ? output.code : output.source);
  }
  return { files, bytes };
}

/** Prints the JavaScript `/` loads, gzipped, and fails the build when it is over the budget. */
export function initialJsBudget(budget = INITIAL_JS_BUDGET_BYTES): Plugin {
  return {
    name: 'initial-js-budget',
    // The client's files only, not the prerender's own build (vite/prerender-home.ts).
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    writeBundle(_options, bundle) {
      const { files, bytes } = initialJsSize(bundle);
      const kb = (value: number) => `${(value / 1000).toFixed(2)} kB`;
      const line =
        `JavaScript loaded by / (${files.join(', ')}): ${kb(bytes)} gzipped ` +
        `(budget ${kb(budget)})`;
      console.log(`\n${line}\n`);
      if (bytes > budget) this.error(`Over budget: ${line}`);
    },
  };
}
