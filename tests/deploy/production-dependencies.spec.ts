import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './support/repo';

interface NpmTree {
  dependencies?: Record<string, NpmTree>;
}

/** Every package name in a service's production dependency tree, as its image installs it. */
function productionPackages(workspace: string): Set<string> {
  const output = execFileSync(
    'npm',
    ['ls', '--omit=dev', '--all', '--json', '--workspace', workspace],
    { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const names = new Set<string>();
  const walk = (tree: NpmTree): void => {
    for (const [name, child] of Object.entries(tree.dependencies ?? {})) {
      if (names.has(name)) continue;
      names.add(name);
      walk(child);
    }
  };
  walk(JSON.parse(output) as NpmTree);
  return names;
}

const HEAVY = /^(@nestjs\/.*|typeorm|pg|express|nestjs-pino)$/;

describe('production dependencies', () => {
  it('the redirect service installs neither Nest, Express, TypeORM nor pg', () => {
    const packages = productionPackages('@shortener/redirect');
    // The tree is read, not empty: the redirect's own drivers are in it.
    expect(packages).toContain('ioredis');
    expect(packages).toContain('kafkajs');
    expect([...packages].filter((name) => HEAVY.test(name))).toEqual([]);
  });

  it('the light chassis core depends on no framework and no driver', () => {
    const packages = productionPackages('@shortener/chassis');
    expect(packages).toContain('pino');
    expect(
      [...packages].filter((name) => HEAVY.test(name) || /^(ioredis|kafkajs)$/.test(name)),
    ).toEqual([]);
  });
});
