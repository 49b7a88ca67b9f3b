/**
 * The built web app's HTML files the servers in front choose among by path and `loggedIn`
 * cookie (webAppPage): prerendered pages and frames paint before their script, the empty app
 * page serves the rest. Written by frontend/vite/prerender-home.ts.
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
