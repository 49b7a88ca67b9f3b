import { useState } from 'react';
import { Link, NavLink } from 'react-router-dom';
import { ChartIcon, LogoIcon, UserIcon } from './icons';
import './top-bar.css';

interface TopBarProps {
  /** The signed-in user's picture, or null for the generic icon. */
  picture: string | null;
}

export function TopBar({ picture }: TopBarProps) {
  return (
    <header className="top-bar">
      <div className="top-bar__inner">
        <Link to="/" className="top-bar__title">
          <span className="top-bar__logo">
            <LogoIcon />
          </span>
          URL Shortener
        </Link>
        <nav aria-label="Main" className="top-bar__nav">
          <NavLink to="/profile" className="top-bar__link">
            <ChartIcon />
            Tracking
          </NavLink>
          {/* The same page as 'Tracking', which alone marks it as the current one. */}
          <Link to="/profile" className="top-bar__profile" aria-label="Profile">
            <Avatar key={picture} picture={picture} />
          </Link>
        </nav>
      </div>
    </header>
  );
}

function Avatar({ picture }: TopBarProps) {
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
