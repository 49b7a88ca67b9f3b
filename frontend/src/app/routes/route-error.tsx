import { useEffect } from 'react';
import { useRouteError } from 'react-router-dom';

/** Never a blank screen: what a route shows when rendering it failed. */
export function RouteError({ standalone = false }: { standalone?: boolean }) {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
  }, [error]);
  const message = (
    <div className="empty-state card" role="alert">
      <h1 className="empty-state__title">Something went wrong.</h1>
      <p>Reload the page, or start again from the home page.</p>
      <div className="empty-state__actions">
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            window.location.reload();
          }}
        >
          Reload
        </button>
        {/* A full navigation: whatever broke is left behind. */}
        <a className="button button--secondary" href="/">
          Home
        </a>
      </div>
    </div>
  );
  // Outside the layout (the frame itself failed) it brings its own page margins.
  return standalone ? <main className="page">{message}</main> : message;
}
