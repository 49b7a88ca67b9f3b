import type { ReactNode } from 'react';

/** The wait state of SPEC section 2: 'Loading....'. */
export function Loading({ children = 'Loading....' }: { children?: ReactNode }) {
  return (
    <p className="loading" role="status">
      <span className="loading__spinner" aria-hidden="true" />
      {children}
    </p>
  );
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
