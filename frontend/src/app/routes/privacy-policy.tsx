import { DELETE_UNDO_OFFER_MS, DELETED_CODE_KEPT_DAYS } from '@shortener/contracts/web';
import { Link } from 'react-router-dom';
import { usePageTitle } from '../../lib/use-page-title';
import './legal.css';

export function PrivacyPolicyRoute() {
  usePageTitle('Privacy policy');
  return (
    <article className="legal card">
      <h1>Privacy policy</h1>
      <p>This page lists everything the service stores, why, and for how long.</p>

      <h2>Your account</h2>
      <p>
        When you sign in with Google, we store your Google account name, email address and profile
        picture. They identify your account and are shown to you on the site. Nothing else from your
        Google account is read.
      </p>

      <h2>The links you create</h2>
      <p>
        For every short link we store the original address, its short code, when it was created,
        when it expires and how often it was visited. Links created while signed in belong to your
        account; links created without signing in belong to no one.
      </p>

      <h2>Visits of short links</h2>
      <p>
        Every time someone opens a short link we record the time, their IP address, their browser’s
        User-Agent (from which we derive their platform, browser and kind of device, and whether it
        is a bot), the referring site, and any <code>utm_</code> parameters of the short link. Their
        country, looked up from the IP address in a database kept on our own servers (no one else is
        asked), is stored with the visit. The owner of the link sees each visit’s time, device,
        browser, IP address and referring site, and totals by day, browser, system, device,
        referring site and country, and can download the visits as a CSV file. The operator can
        configure the service to shorten IP addresses before they are stored.
      </p>

      <h2>How long we keep it</h2>
      <p>
        A link expires after the 7, 15, 30 or 60 days chosen when it was created. After a retention
        period (30 days by default, set by the operator of the service) an expired link is removed
        together with all of its visits. When you delete a link yourself, it stops working at once
        and the page offers Undo for {DELETE_UNDO_OFFER_MS / 1000} seconds; a few seconds later (10
        by default) the link and its visits are removed for good.
      </p>
      <p>
        A removed link’s short code is not given to another link for {DELETED_CODE_KEPT_DAYS} days,
        so that no one else receives the visits meant for it: for that long we keep the code and
        when it was removed, nothing else.
      </p>

      <h2>API keys</h2>
      <p>
        If you make an API key, we store its name, the scopes you chose, when it was made and when
        it was last used. The key itself is shown to you once: only a hash of the key is stored,
        from which it cannot be read back. Revoking a key stops it at once; a revoked key is deleted
        30 days later by default (set by the operator).
      </p>

      <h2>Cookies and browser storage</h2>
      <p>
        When you sign in, a session cookie keeps you signed in, and a second cookie named ‘loggedIn’
        lets this page know that you are. Both end when you sign out. The page also keeps a copy of
        your list of links and of their visitors in your browser’s local storage so that it opens
        faster; that copy is cleared when you are signed out. There are no advertising or
        third-party tracking cookies.
      </p>

      <h2>Sharing</h2>
      <p>
        Your data is not sold or shared with anyone. Google handles the sign-in itself under its own
        privacy policy. See also the <Link to="/tc">terms and conditions</Link>.
      </p>
    </article>
  );
}
