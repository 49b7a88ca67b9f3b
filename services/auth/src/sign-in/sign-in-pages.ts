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
