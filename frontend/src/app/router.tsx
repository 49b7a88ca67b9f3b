import { isValidElement } from 'react';
import { matchRoutes, useRoutes, type RouteObject } from 'react-router-dom';
import { lazyPage, type LazyPage } from '../lib/lazy-page';
import { AppLayout } from './layout';
import { HomeRoute } from './routes/home';
import { RouteErrorBoundary } from './routes/route-error';

// Every page but home is its own chunk, fetched when first shown: the home page loads only
// what it needs (the build prints that figure, vite/initial-js-budget.ts).
const ProfileRoute = lazyPage(async () => (await import('./routes/profile')).ProfileRoute);
const LinkDetailRoute = lazyPage(
  async () => {
    // The detail leads with its stats, a chunk of their own: fetched beside the page's chunk
    // rather than once the page has rendered. Should it fail, the stats ask for it again and say
    // so in their section.
    import('../features/stats/components/stats-section').catch(() => undefined);
    return (await import('./routes/link-detail')).LinkDetailRoute;
  },
  { tall: true },
);
const AnalyticsRoute = lazyPage(async () => (await import('./routes/analytics')).AnalyticsRoute, {
  tall: true,
});
const SettingsRoute = lazyPage(async () => (await import('./routes/settings')).SettingsRoute);
const TermsRoute = lazyPage(async () => (await import('./routes/terms')).TermsRoute);
const PrivacyPolicyRoute = lazyPage(
  async () => (await import('./routes/privacy-policy')).PrivacyPolicyRoute,
);
const NotFoundRoute = lazyPage(async () => (await import('./routes/not-found')).NotFoundRoute);

/** Fetches every page's chunk, so that none waits for it when shown. */
export async function preloadPages(): Promise<void> {
  await Promise.all(
    [
      ProfileRoute,
      LinkDetailRoute,
      AnalyticsRoute,
      SettingsRoute,
      TermsRoute,
      PrivacyPolicyRoute,
      NotFoundRoute,
    ].map((page) => page.preload()),
  );
}

/**
 * Fetches the chunk of the page at `path`, when it is a page of its own: rendered after it, the
 * page shows its content at once rather than its wait first. Never fails: the page says so
 * itself.
 */
export async function preloadPageAt(path: string): Promise<void> {
  const element = matchRoutes(routes, path)?.at(-1)?.route.element;
  const page = isValidElement(element) ? (element.type as Partial<LazyPage>) : undefined;
  await page?.preload?.().catch(() => undefined);
}

/**
 * Every route of the application, in one place: React Router's declarative routes, not its
 * data router (docs/architecture.md, "Declarative routes", says why).
 */
export const routes: RouteObject[] = [
  {
    // Should the frame itself fail, a page that still offers a way out. A failing page keeps
    // the top bar and footer around its error message (the layout's own boundary).
    element: (
      <RouteErrorBoundary standalone>
        <AppLayout />
      </RouteErrorBoundary>
    ),
    children: [
      { index: true, element: <HomeRoute /> },
      { path: 'profile', element: <ProfileRoute /> },
      { path: 'profile/:id', element: <LinkDetailRoute /> },
      { path: 'analytics', element: <AnalyticsRoute /> },
      { path: 'settings', element: <SettingsRoute /> },
      { path: 'tc', element: <TermsRoute /> },
      { path: 'privacy_policy', element: <PrivacyPolicyRoute /> },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];

/**
 * The page at the router's location: inside the browser's router in the page (main.tsx), a
 * static one in the prerender, a memory one in the tests.
 */
export function AppRoutes() {
  return useRoutes(routes);
}
