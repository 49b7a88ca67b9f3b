import { lazy, useState, type ComponentType } from 'react';

export type LazyPage = ComponentType & {
  /** Fetches the page's chunk now; the page then renders at once, without suspending. */
  preload: () => Promise<void>;
};

/** A page in a chunk of its own, fetched the first time it is shown (or preloaded). */
export function lazyPage(load: () => Promise<ComponentType>): LazyPage {
  let loaded: ComponentType | undefined;
  const preload = async () => {
    loaded ??= await load();
  };
  const Suspending = lazy(async () => {
    await preload();
    return { default: loaded as ComponentType };
  });
  function Page() {
    // Chosen once per mount: switching types later would remount the page and lose its state.
    const [Component] = useState<ComponentType>(() => loaded ?? Suspending);
    return <Component />;
  }
  return Object.assign(Page, { preload });
}
