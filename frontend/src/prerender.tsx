// The build's prerender of the home page (vite/prerender-home.ts): the app as the browser
// first renders it at `/`, once for a signed-out and once for a signed-in visitor, so that the
// page paints before its JavaScript arrives. Runs in Node at build time, never in the page.
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router-dom';
import { App } from './app/app';
import { AppRoutes } from './app/router';
import { shellRoot } from './app/shell';
import type { ShellSession } from './features/auth';

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
