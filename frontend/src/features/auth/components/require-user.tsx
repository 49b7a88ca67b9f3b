import type { UserData } from '@shortener/contracts/web';
import type { ReactNode } from 'react';
import { ErrorMessage, Loading } from '../../../components/feedback';
import { useUser } from '../session';
import { SignInPrompt } from './sign-in-prompt';

/** The gate of the profile pages: sign-in prompt, 'Loading....', or the page with userData. */
export function RequireUser({ children }: { children: (user: UserData) => ReactNode }) {
  const { signedIn, user, status, error, loadUser } = useUser();
  if (!signedIn) return <SignInPrompt />;
  if (user) return children(user);
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
  return <Loading />;
}
