// The build's prerender (vite/prerender-home.ts): the app as the browser first renders it at
// `/`, once for a signed-out and once for a signed-in visitor, and at the profile pages for a
// signed-in one, so that they paint before their JavaScript arrives. Runs in Node at build
// time, never in the page.
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router-dom';
import { App } from './app/app';
import { AppRoutes } from './app/router';
import { shellRoot } from './app/shell';
import type { ShellSession } from './features/auth';
import { PrerenderingFrame } from './lib/lazy-page';

/** The files the prerender writes, as the servers in front of the app know them. */
export { WEB_APP_PAGES } from '@shortener/contracts/web';

/** The #root element of the home page, with its markup, for a visitor in `session`. */
export function renderHome(session: ShellSession): string {
  // The page's own links are paths, and what depends on the host waits for the browser.
  const markup = renderToString(
    <App shell={session}>
      <StaticRouter location="/">
        <AppRoutes />
      </StaticRouter>
    </App>,
  );
  return shellRoot(session, markup);
}

/**
 * The #root element of a profile page (`/profile`, `/profile/{code}`) as the app first shows
 * it to a signed-in visitor: the frame, and 'Loading....' where the page's chunk will render.
 * Not marked with a session: main.tsx renders the page anew over it (its content depends on
 * the link and on what the browser keeps), and that first render shows this same frame.
 */
export function renderProfileFrame(location: string): string {
  const markup = renderToString(
    <PrerenderingFrame value>
      <App shell={{ signedIn: true }}>
        <StaticRouter location={location}>
          <AppRoutes />
        </StaticRouter>
      </App>
    </PrerenderingFrame>,
  );
  return `<div id="root">${markup}</div>`;
}
