import { useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { useHydrated } from '../lib/hydration';
import { ChartIcon, LogoIcon, UserIcon } from './icons';
import './top-bar.css';

interface TopBarProps {
  signedIn: boolean;
  /** The signed-in user's picture, or null for the generic icon. */
  picture: string | null;
}

export function TopBar({ signedIn, picture }: TopBarProps) {
  const { pathname, search } = useLocation();
  // The prerendered home page knows its path but not the query it was asked with.
  const from = useHydrated() ? pathname + search : pathname;
  return (
    <header className={signedIn ? 'top-bar' : 'top-bar top-bar--signed-out'}>
      <div className="top-bar__inner">
        <Link to="/" className="top-bar__title">
          <span className="top-bar__logo">
            <LogoIcon />
          </span>
          <span className="top-bar__name">URL Shortener</span>
        </Link>
        <nav aria-label="Main" className="top-bar__nav">
          <NavLink to="/profile" className="top-bar__link">
            <ChartIcon />
            Tracking
          </NavLink>
          {signedIn && (
            // Every link together: the account's analytics.
            <NavLink to="/analytics" className="top-bar__link">
              Analytics
            </NavLink>
          )}
          {!signedIn && (
            // Beside the icon, which alone looks the same as a signed-in user's without a
            // picture: what to do. A browser navigation (SPEC: sign-in is /login?from={path}),
            // which brings the user back here.
            <a className="top-bar__sign-in" href={`/login?from=${encodeURIComponent(from)}`}>
              Sign in
            </a>
          )}
          {/* SPEC section 2: the profile link, the user's picture signed in, else a generic
              icon. The same page as 'Tracking', which alone marks it as the current one. */}
          <Link to="/profile" className="top-bar__profile" aria-label="Profile">
            {signedIn ? (
              <Avatar key={picture} picture={picture} />
            ) : (
              <UserIcon width={22} height={22} />
            )}
          </Link>
        </nav>
      </div>
    </header>
  );
}

function Avatar({ picture }: { picture: string | null }) {
  const [broken, setBroken] = useState(false);
  if (!picture || broken) return <UserIcon width={22} height={22} />;
  return (
    <img
      className="top-bar__avatar"
      src={picture}
      alt=""
      width={32}
      height={32}
      // Google's picture host refuses some requests that carry a Referer.
      referrerPolicy="no-referrer"
      onError={() => {
        setBroken(true);
      }}
    />
  );
}
