import type { ReactNode } from 'react';

/**
 * The wait state of SPEC section 2: 'Loading....'. `tall` for what will be taller than the
 * screen once it comes: the wait keeps the screen's height meanwhile (global.css's
 * tall-pending), so what is below starts out of sight rather than being pushed down.
 */
export function Loading({
  children = 'Loading....',
  tall = false,
}: {
  children?: ReactNode;
  tall?: boolean;
}) {
  const shown = (
    <p className="loading" role="status">
      <span className="loading__spinner" aria-hidden="true" />
      {children}
    </p>
  );
  return tall ? <div className="tall-pending">{shown}</div> : shown;
}

/** An error the user should notice; announced when it appears. */
export function ErrorMessage({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="error-message" role="alert">
      <p>{children}</p>
      {action}
    </div>
  );
}
