import { Component, useEffect, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';

/** Never a blank screen: what a route shows when rendering it failed. */
function RouteError({ error, standalone = false }: { error: unknown; standalone?: boolean }) {
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

interface BoundaryProps {
  children: ReactNode;
  standalone: boolean;
  /** The page's path: going to another page tries again. */
  path: string;
}

class Boundary extends Component<BoundaryProps, { failed: boolean; error: unknown }> {
  override state = { failed: false, error: undefined as unknown };

  static getDerivedStateFromError(error: unknown) {
    return { failed: true, error };
  }

  override componentDidUpdate(previous: BoundaryProps) {
    if (this.state.failed && previous.path !== this.props.path) {
      this.setState({ failed: false, error: undefined });
    }
  }

  override render() {
    return this.state.failed ? (
      <RouteError error={this.state.error} standalone={this.props.standalone} />
    ) : (
      this.props.children
    );
  }
}

/**
 * Shows RouteError in place of `children` when rendering them throws, until the user goes to
 * another page. A `standalone` one stands for the whole frame (top bar and footer included).
 */
export function RouteErrorBoundary({
  children,
  standalone = false,
}: {
  children: ReactNode;
  standalone?: boolean;
}) {
  const { pathname } = useLocation();
  return (
    <Boundary standalone={standalone} path={pathname}>
      {children}
    </Boundary>
  );
}
