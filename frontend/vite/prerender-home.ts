import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin, type ResolvedConfig } from 'vite';
import type * as PrerenderModule from '../src/prerender';

/** The module that renders the home page in Node (its `renderHome`). */
const ENTRY = 'src/prerender.tsx';
const EMPTY_ROOT = '<div id="root"></div>';
/** The entry's script tag, as Vite writes it into index.html. */
const ENTRY_SCRIPT = /<script type="module" crossorigin src="/g;
/** The stylesheet tag Vite writes into index.html for the entry's CSS. */
const STYLESHEET = /<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/g;

type Prerender = typeof PrerenderModule;

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

/**
 * The home page in the HTML itself, with its stylesheet, so that it paints before its
 * JavaScript arrives (issue 31): index.html carries the app's first render at `/` for a
 * signed-out visitor, and index.signed-in.html the same for a signed-in one; main.tsx
 * hydrates either. profile.signed-in.html, link.signed-in.html and settings.signed-in.html
 * carry the frame a signed-in visitor first sees at `/profile`, at a link's page and at
 * `/settings`, which main.tsx renders anew over.
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
      const page = bundle[WEB_APP_PAGES.home];
      if (page?.type !== 'asset') return this.error(`The build emitted no ${WEB_APP_PAGES.home}.`);
      const html = String(page.source);
      if (!html.includes(EMPTY_ROOT)) return this.error(`index.html has no ${EMPTY_ROOT}.`);
      // The prerendered pages' stylesheet in the page itself: they paint with the HTML alone,
      // without waiting for one more file (a few kB; the CSP allows inline styles).
      const inlined = html.replace(STYLESHEET, (tag, file: string) => {
        const sheet = bundle[file];
        if (sheet?.type !== 'asset') return tag;
        return `<style>${String(sheet.source)}</style>`;
      });
      const withRoot = (template: string, root: string) => template.replace(EMPTY_ROOT, () => root);
      // The home page's script is fetched after what paints (fetchpriority="low"): the page
      // shows without it, and it runs when parsed either way (a module script waits for the
      // document). A profile page's content needs it: it keeps its place.
      const home = inlined.replace(ENTRY_SCRIPT, (tag) =>
        tag.replace('<script ', '<script fetchpriority="low" '),
      );
      page.source = withRoot(home, renderHome({ signedIn: false }));
      const emit = (fileName: string, source: string) =>
        this.emitFile({ type: 'asset', fileName, source });
      emit(WEB_APP_PAGES.homeSignedIn, withRoot(home, renderHome({ signedIn: true })));
      emit(WEB_APP_PAGES.profileSignedIn, withRoot(inlined, renderProfileFrame('/profile')));
      // Any code: the frame is the same for every link.
      emit(WEB_APP_PAGES.linkSignedIn, withRoot(inlined, renderProfileFrame('/profile/code')));
      emit(WEB_APP_PAGES.settingsSignedIn, withRoot(inlined, renderProfileFrame('/settings')));
      emit(WEB_APP_PAGES.app, html);
    },
  };
}
