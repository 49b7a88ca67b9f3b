import { Link } from 'react-router-dom';
import { config } from '../lib/config';
import './footer.css';

export function Footer() {
  return (
    <footer className="footer">
      <nav aria-label="Footer" className="footer__inner">
        <a href={config.repositoryUrl} target="_blank" rel="noopener noreferrer">
          Source code<span className="visually-hidden"> (opens in a new tab)</span>
        </a>
        <Link to="/tc">Terms and conditions</Link>
        <Link to="/privacy_policy">Privacy policy</Link>
      </nav>
    </footer>
  );
}
