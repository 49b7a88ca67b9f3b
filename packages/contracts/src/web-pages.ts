/**
 * The HTML files of the built web app (frontend/dist) that the servers in front of it choose
 * among: the home page prerendered for a signed-out visitor and for a signed-in one (by the
 * `loggedIn` cookie), and the app's empty page for every other page path, which the page's
 * router fills in. The build writes them (frontend/vite/prerender-home.ts); the gateway
 * (FrontendMiddleware) and the web app's own nginx (frontend/nginx.conf) serve them.
 */
export const WEB_APP_PAGES = {
  home: 'index.html',
  homeSignedIn: 'index.signed-in.html',
  app: 'app.html',
} as const;
