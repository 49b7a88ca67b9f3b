import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, workspaceFolders } from './support/repo';

/** Every TypeScript source of the workspaces (specs included: a spec can close a circle too). */
function sources(): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
      } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push(full);
      }
    }
  };
  for (const folder of workspaceFolders()) walk(path.join(REPO_ROOT, folder, 'src'));
  return files;
}

/** Workspace package names to their folders, e.g. "@shortener/chassis" to "packages/chassis". */
function packageFolders(): Map<string, string> {
  return new Map(
    workspaceFolders().map((folder) => {
      const manifest = JSON.parse(
        fs.readFileSync(path.join(REPO_ROOT, folder, 'package.json'), 'utf8'),
      ) as { name: string };
      return [manifest.name, path.join(REPO_ROOT, folder)];
    }),
  );
}

/** The first of `candidates` that is a file; undefined when none is (a package, a virtual module). */
function firstFile(candidates: string[]): string | undefined {
  return candidates.find((file) => fs.existsSync(file) && fs.statSync(file).isFile());
}

function resolveIn(base: string): string | undefined {
  const stem = base.replace(/\.js$/, '');
  return firstFile([`${stem}.ts`, `${stem}.tsx`, path.join(stem, 'index.ts'), base]);
}

/** The source file an import names, for relative and workspace imports; undefined otherwise. */
function resolveImport(
  from: string,
  specifier: string,
  packages: Map<string, string>,
): string | undefined {
  if (specifier.startsWith('.')) return resolveIn(path.resolve(path.dirname(from), specifier));
  const [, name = '', subpath = 'index'] = /^(@shortener\/[^/]+)(?:\/(.+))?$/.exec(specifier) ?? [];
  const folder = packages.get(name);
  return folder === undefined ? undefined : resolveIn(path.join(folder, 'src', subpath));
}

/** Import edges between the sources, from each file's import and export declarations. */
function importGraph(): Map<string, string[]> {
  const packages = packageFolders();
  const graph = new Map<string, string[]>();
  for (const file of sources()) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    graph.set(
      file,
      importedFiles
        .map((imported) => resolveImport(file, imported.fileName, packages))
        .filter((target): target is string => target !== undefined),
    );
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each one is a circle. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('imports', () => {
  const graph = importGraph();

  it('reads the imports of every workspace source, workspace packages resolved to their sources', () => {
    expect(graph.size).toBeGreaterThan(300);
    const gateway = [...graph.entries()].find(([file]) =>
      file.endsWith('services/gateway/src/main.ts'),
    );
    expect(gateway?.[1].some((target) => target.includes('/packages/'))).toBe(true);
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(graph)).toEqual([['c', 'b', 'a']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no import circle between files, across packages included', () => {
    const found = circles(graph).map((circle) =>
      circle.map((file) => path.relative(REPO_ROOT, file)),
    );
    expect(found).toEqual([]);
  });
});
