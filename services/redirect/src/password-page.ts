import type { IncomingMessage } from 'node:http';

/** The largest password form body read; a larger one is refused (413) unread. */
export const PASSWORD_BODY_MAX_BYTES = 4096;

/** The headers of every page the redirect answers (no page of it may be framed or cached). */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

const STYLE =
  `body{margin:0;min-height:100vh;display:grid;place-items:center;` +
  `font-family:system-ui,sans-serif;background:#f5f7fb;color:#1f2937}` +
  `main{text-align:center;padding:2rem}a{color:#1d4ed8}`;
const FORM_STYLE =
  `form{display:grid;gap:.75rem;justify-items:center}` +
  `input{font:inherit;padding:.5rem .75rem;border:1px solid #6b7280;border-radius:.375rem}` +
  `button{font:inherit;padding:.5rem 1rem;border:0;border-radius:.375rem;` +
  `background:#1d4ed8;color:#fff}.error{color:#b91c1c}`;

function document(title: string, body: string, style = STYLE): Buffer {
  return Buffer.from(
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${title}</title><style>${style}</style></head><body><main>` +
      `<h1>${title}</h1>${body}</main></body></html>`,
  );
}

/** A fixed page: nothing from the request is ever echoed into it. */
export function page(title: string, message: string): Buffer {
  return document(title, `<p>${message}</p><p><a href="/">Shorten a URL</a></p>`);
}

/**
 * The form a password link answers with: posted to the page's own address (its query string
 * with it), nothing of the destination in it.
 */
function passwordForm(message: string): Buffer {
  return document(
    'This link is protected',
    `${message}<form method="post"><label for="password">Password</label>` +
      `<input id="password" name="password" type="password" required maxlength="128" ` +
      `autocomplete="current-password" autofocus><button type="submit">Continue</button></form>`,
    STYLE + FORM_STYLE,
  );
}

export const PASSWORD_PAGE = passwordForm('<p>Enter the password to follow this short link.</p>');
export const WRONG_PASSWORD_PAGE = passwordForm(
  '<p class="error" role="alert">That password is not right. Try again.</p>',
);

/**
 * The body of a password form, read up to `max` bytes: the password posted, '' for a body
 * without one, or null for a body over `max` (reading stops there).
 */
export function readPassword(req: IncomingMessage, max = PASSWORD_BODY_MAX_BYTES) {
  return new Promise<string | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > max) return;
      const body = Buffer.concat(chunks).toString('utf8');
      resolve(new URLSearchParams(body).get('password') ?? '');
    });
    req.on('error', reject);
  });
}
