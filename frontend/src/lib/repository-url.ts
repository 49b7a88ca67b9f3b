/**
 * The web page of package.json's `repository` (git+https, https, `github:` or `owner/repo`) for
 * the footer's "Source code" link; anything else fails the build rather than ship a dead link.
 */
export function repositoryWebUrl(field: unknown): string {
  const raw = typeof field === 'object' && field !== null && 'url' in field ? field.url : field;
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new Error('package.json has no `repository` (the footer links to it).');
  }
  const text = raw.trim();
  const shorthand = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(text);
  if (shorthand) return `https://github.com/${(shorthand[1] ?? '').replace(/\.git$/, '')}`;
  const url = new URL(text.replace(/^git\+/, ''));
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`package.json \`repository\` is not a web address: ${text}`);
  }
  url.username = '';
  url.password = '';
  url.pathname = url.pathname.replace(/\.git$/, '').replace(/\/+$/, '');
  return url.href.replace(/\/$/, '');
}
