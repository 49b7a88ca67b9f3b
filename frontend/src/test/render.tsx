import { render, renderHook, type RenderResult } from '@testing-library/preact';
import type { ReactElement, ReactNode } from 'react';
import {
  MemoryRouter,
  useLocation,
  useNavigate,
  useRoutes,
  type Location,
  type RouteObject,
} from 'react-router-dom';
import { SessionProvider } from '../features/auth';
import { UndoDeleteProvider } from '../features/links';
import { AppRoutes } from '../app/router';

/** The test's hold on the router: where it is, and a way to go elsewhere. */
export interface TestRouter {
  readonly location: Location;
  navigate: (to: string) => Promise<void>;
}

type Rendered = RenderResult & { router: TestRouter };

/** Reports the router's location and navigate function to the test, from inside the router. */
function RouterProbe({ router }: { router: { location?: Location; go?: (to: string) => void } }) {
  router.location = useLocation();
  const navigate = useNavigate();
  router.go = (to) => void navigate(to);
  return null;
}

function renderAt(path: string, page: ReactNode): Rendered {
  const held: { location?: Location; go?: (to: string) => void } = {};
  const result = render(
    <SessionProvider>
      <UndoDeleteProvider>
        <MemoryRouter initialEntries={[path]}>
          {page}
          <RouterProbe router={held} />
        </MemoryRouter>
      </UndoDeleteProvider>
    </SessionProvider>,
  );
  const router: TestRouter = {
    get location() {
      if (!held.location) throw new Error('The router has not rendered.');
      return held.location;
    },
    navigate: (to) => {
      held.go?.(to);
      return Promise.resolve();
    },
  };
  return { ...result, router };
}

/** Renders the whole application at `path`, as the browser would. */
export function renderApp(path = '/'): Rendered {
  return renderAt(path, <AppRoutes />);
}

function PageRoutes({ routes }: { routes: RouteObject[] }) {
  return useRoutes(routes);
}

/** Renders one element inside the session and a router, at `path`. */
export function renderWithSession(element: ReactElement, path = '/'): Rendered {
  const pageRoutes: RouteObject[] = [
    { path: '*', element },
    { path: '/profile/:id', element: <p>Detail page</p> },
  ];
  return renderAt(path, <PageRoutes routes={pageRoutes} />);
}

/**
 * Renders `hook` inside `Wrapper` (the session, say). Testing Library's Preact renderer types
 * a wrapper's children as Preact's elements, the app's components take React's: the same
 * elements at run time (preact/compat), two names for them to TypeScript.
 */
export function renderHookIn<Result>(
  hook: () => Result,
  Wrapper: (props: { children: ReactNode }) => ReactNode,
) {
  return renderHook(hook, {
    wrapper: ({ children }) => <Wrapper>{children as ReactNode}</Wrapper>,
  });
}
