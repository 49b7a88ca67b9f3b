import type { UserData } from '@shortener/contracts/web';
import { useCallback, type ReactNode } from 'react';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { Unreachable } from '../../../components/unreachable';
import { UNREACHABLE } from '../../../lib/api';
import { useUser } from '../session';
import { SignInPrompt } from './sign-in-prompt';

/**
 * The gate of the profile pages: sign-in prompt, 'Loading....', or the page with userData. A
 * `tall` page keeps the screen's height while userData comes, as it did while its chunk came.
 */
export function RequireUser({
  children,
  tall = false,
}: {
  children: (user: UserData) => ReactNode;
  tall?: boolean;
}) {
  const { signedIn, user, status, error, loadUser } = useUser();
  const retry = useCallback(() => void loadUser({ refresh: true }), [loadUser]);
  if (!signedIn) return <SignInPrompt />;
  if (user) return children(user);
  // No answer at all: asked again until one comes, so the page recovers by itself.
  if (status === 'error' && error === UNREACHABLE) return <Unreachable onRetry={retry} />;
  if (status === 'error') {
    return (
      <ErrorMessage
        action={
          <button
            type="button"
            className="button button--secondary"
            onClick={() => void loadUser({ refresh: true })}
          >
            Try again
          </button>
        }
      >
        {error}
      </ErrorMessage>
    );
  }
  return <Loading tall={tall} />;
}
