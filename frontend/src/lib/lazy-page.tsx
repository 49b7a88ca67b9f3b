import { lazy, Suspense, useState, type ComponentType } from 'react';
import { Loading } from '../components/feedback';

export type LazyPage = ComponentType & {
  /** Fetches the page's chunk now; the page then renders at once, without suspending. */
  preload: () => Promise<void>;
};

/**
 * A page in a chunk of its own, fetched the first time it is shown (or preloaded). A `tall`
 * page (taller than the screen once shown) keeps the screen's height while its chunk comes
 * (global.css's tall-pending), so the footer is not pushed out of view in front of the reader.
 */
export function lazyPage(
  load: () => Promise<ComponentType>,
  { tall = false }: { tall?: boolean } = {},
): LazyPage {
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
    return tall ? (
      <Suspense fallback={<Loading tall />}>
        <Component />
      </Suspense>
    ) : (
      <Component />
    );
  }
  return Object.assign(Page, { preload });
}
