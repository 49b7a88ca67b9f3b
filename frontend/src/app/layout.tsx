import { Suspense, useEffect, useLayoutEffect, useRef } from 'react';
import { NavigationType, Outlet, useLocation, useNavigationType } from 'react-router-dom';
import { Loading } from '../components/feedback';
import { Footer } from '../components/footer';
import { TopBar } from '../components/top-bar';
import { useSession } from '../features/auth';
import { UndoDeleteNotice } from '../features/links';
import { RouteErrorBoundary } from './routes/route-error';

/** Every route sits between the top bar and the footer (SPEC section 2). */
export function AppLayout() {
  const { signedIn, picture } = useSession();
  const main = useRef<HTMLElement>(null);
  const { pathname, key } = useLocation();
  const navigationType = useNavigationType();
  const shownPath = useRef(pathname);

  // A new page starts at its top; back and forward leave the browser to restore where the
  // reader was (history.scrollRestoration 'auto').
  useLayoutEffect(() => {
    if (navigationType !== NavigationType.Pop) window.scrollTo(0, 0);
  }, [key, navigationType]);

  // After an in-app navigation, start keyboard and screen-reader users at the new content.
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    main.current?.focus({ preventScroll: true });
  }, [pathname]);

  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <TopBar signedIn={signedIn} picture={signedIn ? picture : null} />
      <main id="main" ref={main} className="page" tabIndex={-1}>
        {/* While a page's chunk arrives the first time (router.tsx). */}
        <RouteErrorBoundary>
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </RouteErrorBoundary>
        <UndoDeleteNotice />
      </main>
      <Footer />
    </>
  );
}
