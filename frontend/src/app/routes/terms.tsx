import { Link } from 'react-router-dom';
import { usePageTitle } from '../../lib/use-page-title';
import './legal.css';

export function TermsRoute() {
  usePageTitle('Terms and conditions');
  return (
    <article className="legal card">
      <h1>Terms and conditions</h1>

      <h2>The service</h2>
      <p>
        Anyone can turn a web address (http or https) into a short link and share it. Signed-in
        users can also choose how long a link lives, see their links with their visit counts, see
        who visited each link, and delete links at any time.
      </p>

      <h2>Acceptable use</h2>
      <p>
        Do not shorten links to unlawful content, malware, phishing or spam, and do not use short
        links to hide where a link really leads in order to deceive. Links that break these terms
        may be removed without notice. The number of links a client can create in a short time is
        limited.
      </p>

      <h2>Expiry</h2>
      <p>
        Links made without signing in expire after 7 days. Signed-in users choose 7, 15, 30 or 60
        days. Once a link has expired, its short link stops working and can no longer be changed or
        renewed.
      </p>

      <h2>Visitor tracking</h2>
      <p>
        Each visit of a short link is recorded and shown to the person who created the link, as
        described in the <Link to="/privacy_policy">privacy policy</Link>. By sharing a short link
        you accept that its visits are recorded.
      </p>

      <h2>No warranty</h2>
      <p>
        The service is provided as it is, without any guarantee that it is available or free of
        errors, and it may change or end at any time. Keep your own copy of any address that matters
        to you.
      </p>
    </article>
  );
}
