import { useSyncExternalStore } from 'react';

const subscribeToNothing = () => () => undefined;

/**
 * False while React takes over the home page's prerendered markup (main.tsx's hydrateRoot)
 * and in the build's prerender itself; true in every other render. What only the browser
 * knows (the host, the query, the sign-in cookie) is shown once this is true: the first
 * render then matches the markup the server sent, as hydration requires, and React renders
 * again at once with the browser's values.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}

/** The page's host (SPEC: the URL input's placeholder), or '' until the page is hydrated. */
export function useHost(): string {
  return useHydrated() ? window.location.host : '';
}
