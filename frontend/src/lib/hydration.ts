import { useSyncExternalStore } from 'react';

const subscribeToNothing = () => () => undefined;

/**
 * False while hydrating the prerendered home page and in the prerender, true after: what only
 * the browser knows is shown from then, so the first render matches the server's markup.
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
