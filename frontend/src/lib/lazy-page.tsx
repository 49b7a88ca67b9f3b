import {
  createContext,
  lazy,
  Suspense,
  useCallback,
  useContext,
  useState,
  type ComponentType,
  type LazyExoticComponent,
  type ReactNode,
} from 'react';
import { Loading } from '../components/feedback';
import { Unreachable } from '../components/unreachable';

export type LazyPage = ComponentType & {
  /** Fetches the page's chunk now; the page then renders at once, without suspending. */
  preload: () => Promise<void>;
};

/**
 * True in the build's prerender of a page's frame (src/prerender.tsx): each page shows its wait,
 * as it does before its chunk comes, without suspending (a renderer that waits for nothing
 * cannot show a Suspense fallback).
 */
export const PrerenderingFrame = createContext(false);

/**
 * A page in a chunk of its own, fetched the first time it is shown (or preloaded). A `tall`
 * page (taller than the screen once shown) keeps the screen's height while its chunk comes
 * (global.css's tall-pending), so the footer is not pushed out of view in front of the reader.
 * Should its chunk not come (no network, the server down), it says so instead (retryingLazy).
 */
export function lazyPage(
  load: () => Promise<ComponentType>,
  { tall = false }: { tall?: boolean } = {},
): LazyPage {
  const chunk = retryingLazy(load);
  function Page() {
    // Chosen once per mount: switching types later would remount the page and lose its state.
    const [Component] = useState<ComponentType>(() => chunk.loaded() ?? chunk.Suspending);
    if (useContext(PrerenderingFrame)) return <Loading tall={tall} />;
    return tall ? (
      <Suspense fallback={<Loading tall />}>
        <Component />
      </Suspense>
    ) : (
      <Component />
    );
  }
  return Object.assign(Page, { preload: chunk.preload });
}

export interface RetryingLazy<P extends object> {
  /** Suspends until the chunk has been asked for once, as React's lazy does. */
  Suspending: LazyExoticComponent<ComponentType<P>>;
  preload: () => Promise<void>;
  /** The component, once its chunk came. */
  loaded: () => ComponentType<P> | undefined;
}

/**
 * React's lazy, but a chunk that failed to fetch shows 'Cannot reach the server' with Retry
 * and is asked for again until it comes (browsers forget a failed import's failure).
 */
export function retryingLazy<P extends object>(
  load: () => Promise<ComponentType<P>>,
  { frame = (message) => message }: { frame?: (message: ReactNode) => ReactNode } = {},
): RetryingLazy<P> {
  let loaded: ComponentType<P> | undefined;
  const preload = async () => {
    loaded ??= await load();
  };

  function Fetched(props: P) {
    const [Component, setComponent] = useState(() => loaded);
    const retry = useCallback(() => {
      void refetchFailedStylesheets()
        .then(preload)
        .then(
          () => setComponent(() => loaded),
          // Still not there: the message stays and the next attempt comes.
          () => undefined,
        );
    }, []);
    return Component ? <Component {...props} /> : frame(<Unreachable onRetry={retry} />);
  }

  const Suspending = lazy(async () => {
    // A failure is Fetched's to say, with its retries; it never reaches an error boundary.
    await preload().catch(() => undefined);
    return { default: Fetched };
  });
  return { Suspending, preload, loaded: () => loaded };
}

/**
 * Vite adds a chunk's stylesheets beside it and never asks for one again, even after it
 * failed: without this, a page fetched on a retry would show unstyled. A stylesheet without a
 * sheet failed (or is still coming, and is then simply asked for again).
 */
function refetchFailedStylesheets(): Promise<void> {
  const failed = [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].filter(
    (link) => link.sheet === null,
  );
  return Promise.all(
    failed.map(
      (link) =>
        new Promise<void>((resolve, reject) => {
          const again = link.cloneNode() as HTMLLinkElement;
          again.addEventListener('load', () => resolve());
          again.addEventListener('error', () => reject(new Error(`${again.href} failed`)));
          link.replaceWith(again);
        }),
    ),
  ).then(() => undefined);
}
