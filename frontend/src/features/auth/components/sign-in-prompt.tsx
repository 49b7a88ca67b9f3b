import { useLocation } from 'react-router-dom';
import { GoogleIcon } from '../../../components/icons';
import './sign-in-prompt.css';

/** Sign-in is a full browser navigation; the server brings the user back to `from`. */
function signInHref(path: string): string {
  return `/login?from=${encodeURIComponent(path)}`;
}

export function SignInPrompt() {
  const { pathname } = useLocation();
  return (
    <section className="sign-in card" aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading" className="sign-in__title">
        You must login first
      </h1>
      <p className="sign-in__text">
        Sign in to choose longer expiry times, see your links and who visits them.
      </p>
      <a className="button button--google" href={signInHref(pathname)}>
        <GoogleIcon />
        Sign in with Google
      </a>
    </section>
  );
}
