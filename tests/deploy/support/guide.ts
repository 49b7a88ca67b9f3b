import fs from 'node:fs';
import path from 'node:path';
import { readRepoFile, REPO_ROOT } from './repo';

// The operations guide: an index (docs/operations.md), a page a subject (docs/operations/)
// and a runbook an alert (docs/runbooks/<alert, lower case>.md).

export const GUIDE_INDEX = 'docs/operations.md';
const PAGES_DIR = 'docs/operations';
export const RUNBOOKS_DIR = 'docs/runbooks';

/** The Markdown files of a folder of the repository, as repository paths. */
function markdownIn(folder: string): string[] {
  const absolute = path.join(REPO_ROOT, folder);
  if (!fs.existsSync(absolute)) return [];
  return fs
    .readdirSync(absolute)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `${folder}/${name}`);
}

/** Folders never walked for Markdown: dependencies, builds, caches and run output. */
const NOT_SOURCES = new Set(['node_modules', 'dist', 'artifacts', 'coverage']);

/** Every Markdown file of the repository (hidden folders and builds left out), as repository paths. */
export function repoMarkdownFiles(folder = ''): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, folder), { withFileTypes: true })
    .flatMap((entry) => {
      const relative = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        return entry.name.startsWith('.') || NOT_SOURCES.has(entry.name)
          ? []
          : repoMarkdownFiles(relative);
      }
      return entry.name.endsWith('.md') ? [relative] : [];
    })
    .sort();
}

/** The runbook pages, as repository paths. */
export function runbookPages(): string[] {
  return markdownIn(RUNBOOKS_DIR);
}

/** Every page of the guide, as repository paths: the index, the subjects, the runbooks. */
export function guidePages(): string[] {
  return [GUIDE_INDEX, ...markdownIn(PAGES_DIR), ...runbookPages()];
}

/** One page of the guide by its file name in docs/operations ("deploy" for deploy.md). */
export function guidePage(name: string): string {
  return readRepoFile(`${PAGES_DIR}/${name}.md`);
}

/** The whole guide as one text, for what may be said on any of its pages. */
export function guideText(): string {
  return guidePages()
    .map((page) => readRepoFile(page))
    .join('\n');
}

/** The anchors of a Markdown file's headings, as GitHub makes them. */
export function headingAnchors(markdown: string): Set<string> {
  const outsideCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set(
    [...outsideCode.matchAll(/^#{1,6} (.+)$/gm)].map(([, title]) =>
      title!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

/** The text of a page's section, from its heading to the next heading of its level or above. */
export function section(markdown: string, heading: string): string {
  const start = markdown.search(new RegExp(`^(#+) ${heading}$`, 'm'));
  if (start < 0) return '';
  const level = /^#+/.exec(markdown.slice(start))![0].length;
  const rest = markdown.slice(start).split('\n').slice(1).join('\n');
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}
