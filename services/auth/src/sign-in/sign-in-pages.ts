import { signInApi } from '@shortener/contracts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

export interface PageLink {
  href: string;
  label: string;
}

/**
 * The few pages the sign-in flow shows itself (it runs outside the single-page app): a
 * heading, what happened, what to do, and links to go on.
 */
export function signInPage(title: string, lines: string[], links: PageLink[]): string {
  const body = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n    ');
  const nav = links
    .map((link) => `<a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>`)
    .join(' · ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
  </head>
  <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
    <h1>${escapeHtml(title)}</h1>
    ${body}
    <p>${nav}</p>
  </body>
</html>
`;
}

/**
 * The embedded mode's local sign-in, for trying the product without a Google client: plainly
 * labelled as not Google, with the page to return to carried in a hidden field.
 */
export function localSignInPage(from: string, error?: string): string {
  const problem = error ? `<p role="alert" style="color: #b42318">${escapeHtml(error)}</p>` : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Local sign-in (not Google)</title>
  </head>
  <body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem">
    <h1>Local sign-in (not Google)</h1>
    <p>This server runs without Google sign-in, for trying the product. Sign in under any name:
    anyone using this server can sign in under the same name and see its links.</p>
    ${problem}
    <form method="post" action="${signInApi.localSignIn.path}">
      <input type="hidden" name="from" value="${escapeHtml(from)}" />
      <label for="name">Your name</label><br />
      <input id="name" name="name" autocomplete="name" maxlength="60" required autofocus
        style="font: inherit; padding: 0.5rem; margin: 0.5rem 0 1rem; width: 100%; box-sizing: border-box" />
      <button type="submit" style="font: inherit; padding: 0.5rem 1rem">Sign in locally</button>
    </form>
    <p><a href="/">Home</a></p>
  </body>
</html>
`;
}

/**
 * What GET /logout answers: it signs no one out (a link or an image on another site could
 * make that request), but offers the button that does, a same-origin POST.
 */
export function signOutPage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sign out</title>
  </head>
  <body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem">
    <h1>Sign out</h1>
    <p>Sign out of this browser? Your links stay as they are.</p>
    <form method="post" action="${signInApi.signOut.path}">
      <button type="submit" style="font: inherit; padding: 0.5rem 1rem">Sign out</button>
    </form>
    <p><a href="/">Home</a></p>
  </body>
</html>
`;
}
