/**
 * The HTML files of the built web app (frontend/dist) that the servers in front of it choose
 * among, by the page's path and the `loggedIn` cookie (webAppPage): the home page prerendered
 * for a signed-out visitor and for a signed-in one; the frame of the profile and settings pages
 * (top bar, 'Loading....', footer) for a signed-in visitor, so that they paint before their
 * script; and
 * the app's empty page for every other page path, which the page's router fills in. The
 * build writes them (frontend/vite/prerender-home.ts); the gateway (FrontendMiddleware) and
 * the web app's own nginx (frontend/nginx.conf) serve them.
 */
export const WEB_APP_PAGES = {
  home: 'index.html',
  homeSignedIn: 'index.signed-in.html',
  profileSignedIn: 'profile.signed-in.html',
  linkSignedIn: 'link.signed-in.html',
  settingsSignedIn: 'settings.signed-in.html',
  app: 'app.html',
} as const;

/** A link's page under the profile: /profile/{code}. */
const LINK_PAGE = /^\/profile\/[^/]+$/;

/** The file for a page path (no query), for a visitor signed in by the cookie or not. */
export function webAppPage(
  path: string,
  signedIn: boolean,
): (typeof WEB_APP_PAGES)[keyof typeof WEB_APP_PAGES] {
  if (path === '/') return signedIn ? WEB_APP_PAGES.homeSignedIn : WEB_APP_PAGES.home;
  if (signedIn && path === '/profile') return WEB_APP_PAGES.profileSignedIn;
  if (signedIn && LINK_PAGE.test(path)) return WEB_APP_PAGES.linkSignedIn;
  if (signedIn && path === '/settings') return WEB_APP_PAGES.settingsSignedIn;
  return WEB_APP_PAGES.app;
}

/** Whether the page at `path` depends on the cookie (a cache keeps one copy per cookie). */
export function webAppPageVaries(path: string): boolean {
  return webAppPage(path, true) !== webAppPage(path, false);
}
