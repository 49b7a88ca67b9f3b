import { render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { SessionProvider } from '../features/auth';
import { UndoDeleteProvider } from '../features/links';
import { routes } from '../app/router';

type Rendered = RenderResult & { router: ReturnType<typeof createMemoryRouter> };

/** Renders the whole application at `path`, as the browser would. */
export function renderApp(path = '/'): Rendered {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const result = render(
    <SessionProvider>
      <UndoDeleteProvider>
        <RouterProvider router={router} />
      </UndoDeleteProvider>
    </SessionProvider>,
  );
  return { ...result, router };
}

/** Renders one element inside the session and a router, at `path`. */
export function renderWithSession(element: ReactElement, path = '/'): Rendered {
  const pageRoutes: RouteObject[] = [
    { path: '*', element },
    { path: '/profile/:id', element: <p>Detail page</p> },
  ];
  const router = createMemoryRouter(pageRoutes, { initialEntries: [path] });
  const result = render(
    <SessionProvider>
      <UndoDeleteProvider>
        <RouterProvider router={router} />
      </UndoDeleteProvider>
    </SessionProvider>,
  );
  return { ...result, router };
}
