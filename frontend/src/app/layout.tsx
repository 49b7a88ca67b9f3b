import { Suspense, useEffect, useRef } from 'react';
import { Outlet, ScrollRestoration, useLocation } from 'react-router-dom';
import { Loading } from '../components/feedback';
import { Footer } from '../components/footer';
import { TopBar } from '../components/top-bar';
import { useSession } from '../features/auth';
import { UndoDeleteNotice } from '../features/links';

/** Every route sits between the top bar and the footer (SPEC section 2). */
export function AppLayout() {
  const { signedIn, picture } = useSession();
  const main = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  const shownPath = useRef(pathname);

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
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
        <UndoDeleteNotice />
      </main>
      <Footer />
      <ScrollRestoration />
    </>
  );
}
