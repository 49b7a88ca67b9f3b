import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OutputBundle, OutputChunk } from 'rollup';
import { build, type Plugin, type ResolvedConfig } from 'vite';
import type * as PrerenderModule from '../src/prerender';

/** The module that renders the home page in Node (its `renderHome`). */
const ENTRY = 'src/prerender.tsx';
const EMPTY_ROOT = '<div id="root"></div>';
/** The entry's script tag, as Vite writes it into index.html. */
const ENTRY_SCRIPT = /<script type="module" crossorigin src="/g;
/** The same tag whole. */
const ENTRY_SCRIPT_TAG = /<script [^>]*type="module" crossorigin src="[^"]+"><\/script>/;
/** The stylesheet tag Vite writes into index.html for the entry's CSS. */
const STYLESHEET = /<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/g;

type Prerender = typeof PrerenderModule;
type PageName = keyof Prerender['WEB_APP_PAGES'];

/**
 * The modules of the page each signed-in frame stands for (router.tsx's lazy pages; a link's
 * also its stats, which the router fetches beside it): their chunks are modulepreloaded from
 * the frame's HTML, so that they come beside the entry's script instead of after it has run.
 */
const PAGE_MODULES: Partial<Record<PageName, string[]>> = {
  profileSignedIn: ['src/app/routes/profile.tsx'],
  linkSignedIn: [
    'src/app/routes/link-detail.tsx',
    'src/features/stats/components/stats-section.tsx',
  ],
  settingsSignedIn: ['src/app/routes/settings.tsx'],
};

/**
 * Builds src/prerender.tsx for Node with this same configuration (an SSR build, its
 * dependencies left to node_modules) into Vite's cache folder, and loads it.
 */
async function loadPrerender(config: ResolvedConfig): Promise<Prerender> {
  mkdirSync(config.cacheDir, { recursive: true });
  const outDir = mkdtempSync(path.join(config.cacheDir, 'prerender-'));
  try {
    await build({
      configFile: config.configFile,
      root: config.root,
      mode: config.mode,
      logLevel: 'warn',
      // React Router bundled in, not loaded by Node: Node's `require('react')` would give it
      // React itself, where the app renders with Preact (the aliases reach bundled code only).
      ssr: { noExternal: [/^react-router/] },
      build: {
        ssr: ENTRY,
        outDir,
        emptyOutDir: true,
        copyPublicDir: false,
        minify: false,
        rollupOptions: { output: { entryFileNames: 'prerender.mjs' } },
      },
    });
    return (await import(pathToFileURL(path.join(outDir, 'prerender.mjs')).href)) as Prerender;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The signed-in frames' first script: userData asked for while the page is read. */
const USER_REQUEST_ENTRY = 'src/user-request.ts';

/**
 * src/user-request.ts with all it imports as one small script, built on its own with this same
 * configuration, so that it shares no chunk with the app (the home page loads nothing more).
 * An SSR build for the browser (webworker target, nothing external) because this build's own
 * plugins (this one, the size report and budget) leave SSR builds alone.
 */
async function buildUserRequest(config: ResolvedConfig): Promise<string> {
  const output = await build({
    configFile: config.configFile,
    root: config.root,
    mode: config.mode,
    logLevel: 'warn',
    ssr: { target: 'webworker', noExternal: true },
    build: {
      ssr: USER_REQUEST_ENTRY,
      write: false,
      copyPublicDir: false,
      minify: true,
      target: config.build.target,
      rollupOptions: { output: { format: 'iife' } },
    },
  });
  const [chunk] = (Array.isArray(output) ? output : [output]).flatMap((result) =>
    'output' in result ? result.output : [],
  );
  if (chunk?.type !== 'chunk') throw new Error(`${USER_REQUEST_ENTRY} built to nothing.`);
  return chunk.code;
}

/**
 * The chunks of `modules` and every chunk they import, but the entry (the page's own script):
 * what the page's code needs before it can render, in the order to fetch them.
 */
function chunksOf(bundle: OutputBundle, root: string, modules: string[]): string[] {
  const chunks = Object.values(bundle).filter((file): file is OutputChunk => file.type === 'chunk');
  const files = new Set<string>();
  const add = (fileName: string) => {
    const chunk = bundle[fileName];
    if (files.has(fileName) || chunk?.type !== 'chunk' || chunk.isEntry) return;
    files.add(fileName);
    chunk.imports.forEach(add);
  };
  for (const module of modules) {
    const id = path.join(root, module);
    const chunk = chunks.find((candidate) => candidate.facadeModuleId === id);
    if (!chunk) throw new Error(`No chunk of its own for ${module} (vite/prerender-home.ts).`);
    add(chunk.fileName);
  }
  return [...files];
}

/** The stylesheets Vite's loader fetches before it lets `chunks` run. */
function stylesheetsOf(bundle: OutputBundle, chunks: string[]): string[] {
  return chunks.flatMap((fileName) => {
    const chunk = bundle[fileName];
    return chunk?.type === 'chunk' ? [...(chunk.viteMetadata?.importedCss ?? [])] : [];
  });
}

/**
 * Every page carries the entry's stylesheet (inline in the prerendered ones, linked in
 * app.html), so no chunk loaded later needs it: out of the entry's CSS, from which Vite lists
 * what a dynamic import loads first. Vite's preload looks for a <link> of it, not a <style>,
 * and would fetch it again on the prerendered pages and hold the import until it came.
 * index.html's tags are written by then; the preload lists come after (vite:build-import-analysis).
 */
function forgetEntryStylesheet(bundle: OutputBundle, file: string): void {
  for (const chunk of Object.values(bundle)) {
    if (chunk.type === 'chunk' && chunk.isEntry) chunk.viteMetadata?.importedCss.delete(file);
  }
}

/**
 * The home page in the HTML itself, with its stylesheet, so that it paints before its
 * JavaScript arrives (issue 31): index.html carries the app's first render at `/` for a
 * signed-out visitor, and index.signed-in.html the same for a signed-in one; main.tsx
 * hydrates either. profile.signed-in.html, link.signed-in.html and settings.signed-in.html
 * carry the frame a signed-in visitor first sees at `/profile`, at a link's page and at
 * `/settings`, which main.tsx renders anew over, and modulepreload that page's chunks.
 * app.html keeps the empty #root and the stylesheet's link, for every other path, whose page
 * the router renders in the browser. The names are WEB_APP_PAGES (packages/contracts), which
 * the servers in front read too.
 */
export function prerenderHome(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'prerender-home',
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    // After Vite has written its script and stylesheet tags into index.html.
    enforce: 'post',
    configResolved(resolved) {
      config = resolved;
    },
    async generateBundle(_options, bundle) {
      const { renderHome, renderProfileFrame, WEB_APP_PAGES } = await loadPrerender(config);
      const userRequest = this.emitFile({
        type: 'asset',
        name: 'user-request.js',
        source: await buildUserRequest(config),
      });
      const page = bundle[WEB_APP_PAGES.home];
      if (page?.type !== 'asset') return this.error(`The build emitted no ${WEB_APP_PAGES.home}.`);
      const html = String(page.source);
      if (!html.includes(EMPTY_ROOT)) return this.error(`index.html has no ${EMPTY_ROOT}.`);
      // The prerendered pages' stylesheet in the page itself: they paint with the HTML alone,
      // without waiting for one more file (a few kB; the CSP allows inline styles).
      const inlined = html.replace(STYLESHEET, (tag, file: string) => {
        const sheet = bundle[file];
        if (sheet?.type !== 'asset') return tag;
        forgetEntryStylesheet(bundle, file);
        return `<style>${String(sheet.source)}</style>`;
      });
      const withRoot = (template: string, root: string) => template.replace(EMPTY_ROOT, () => root);
      // Every prerendered page's script is fetched after what paints (fetchpriority="low"):
      // the page shows without it, and it runs when parsed either way (a module script waits
      // for the document). With nothing else to fetch, low priority does not hold it back.
      const prerendered = inlined.replace(ENTRY_SCRIPT, (tag) =>
        tag.replace('<script ', '<script fetchpriority="low" '),
      );
      page.source = withRoot(prerendered, renderHome({ signedIn: false }));
      const emit = (fileName: string, source: string) =>
        this.emitFile({ type: 'asset', fileName, source });
      emit(WEB_APP_PAGES.homeSignedIn, withRoot(prerendered, renderHome({ signedIn: true })));
      // A frame's page: userData asked for by a script of its own ahead of the entry's (async:
      // it holds neither the parser nor the paint), the page's chunks modulepreloaded right
      // after the entry's script, at its priority, and their stylesheets preloaded, which Vite's
      // loader would otherwise ask for only once the entry has run, and wait for.
      const frame = (name: PageName, location: string) => {
        const chunks = chunksOf(bundle, config.root, PAGE_MODULES[name] ?? []);
        const preloads = [
          ...chunks.map(
            (file) =>
              `<link rel="modulepreload" fetchpriority="low" crossorigin href="${config.base}${file}">`,
          ),
          ...stylesheetsOf(bundle, chunks).map(
            (file) =>
              `<link rel="preload" as="style" fetchpriority="low" crossorigin href="${config.base}${file}">`,
          ),
        ].join('');
        const early = `<script async fetchpriority="low" src="${config.base}${this.getFileName(userRequest)}"></script>`;
        const withPreloads = prerendered.replace(ENTRY_SCRIPT_TAG, (tag) => early + tag + preloads);
        emit(WEB_APP_PAGES[name], withRoot(withPreloads, renderProfileFrame(location)));
      };
      frame('profileSignedIn', '/profile');
      // Any code: the frame is the same for every link.
      frame('linkSignedIn', '/profile/code');
      frame('settingsSignedIn', '/settings');
      emit(WEB_APP_PAGES.app, html);
    },
  };
}
