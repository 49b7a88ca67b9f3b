import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { AppLayout } from './layout';
import { HomeRoute } from './routes/home';
import { LinkDetailRoute } from './routes/link-detail';
import { NotFoundRoute } from './routes/not-found';
import { PrivacyPolicyRoute } from './routes/privacy-policy';
import { ProfileRoute } from './routes/profile';
import { RouteError } from './routes/route-error';
import { TermsRoute } from './routes/terms';

/** Every route of the application, in one place. */
export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    // Should the frame itself fail, a page that still offers a way out.
    errorElement: <RouteError standalone />,
    children: [
      {
        // A failing page keeps the top bar and footer around its error message.
        errorElement: <RouteError />,
        children: [
          { index: true, element: <HomeRoute /> },
          { path: 'profile', element: <ProfileRoute /> },
          { path: 'profile/:id', element: <LinkDetailRoute /> },
          { path: 'tc', element: <TermsRoute /> },
          { path: 'privacy_policy', element: <PrivacyPolicyRoute /> },
          { path: '*', element: <NotFoundRoute /> },
        ],
      },
    ],
  },
];

export function createRouter() {
  return createBrowserRouter(routes);
}
