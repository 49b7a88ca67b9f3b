/**
 * The web page of a package.json `repository` field (an object with `url`, or a string),
 * for the footer's "Source code" link: `git+https://host/owner/repo.git` and
 * `https://host/owner/repo` give `https://host/owner/repo`; the `github:owner/repo` and
 * `owner/repo` shorthands a GitHub page. Anything else fails the build: a footer that points
 * nowhere useful must not ship quietly.
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
