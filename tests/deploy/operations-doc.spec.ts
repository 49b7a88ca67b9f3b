import fs from 'node:fs';
import path from 'node:path';
import {
  configVariables,
  readRepoFile,
  REPO_ROOT,
  runtimeWorkspaces,
  SERVICES,
} from './support/repo';

/** Names of the Prometheus metrics the services register (prom-client constructors). */
function metricNames(): string[] {
  // The services and every workspace package they run with (the chassis and its parts).
  const folders = [...new Set(SERVICES.flatMap(runtimeWorkspaces))].map(
    (folder) => `${folder}/src`,
  );
  const names = new Set<string>();
  for (const folder of folders) {
    const files = fs.readdirSync(path.join(REPO_ROOT, folder), {
      recursive: true,
      encoding: 'utf8',
    });
    for (const file of files.filter((name) => name.endsWith('.ts') && !name.endsWith('spec.ts'))) {
      const source = readRepoFile(`${folder}/${file}`);
      for (const match of source.matchAll(
        /new (?:Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\{\s*name:\s*'([a-z_:][a-z0-9_:]*)'/g,
      )) {
        names.add(match[1]!);
      }
    }
  }
  return [...names].sort();
}

describe('docs/operations.md', () => {
  const doc = readRepoFile('docs/operations.md');

  it('documents every environment variable a service reads', () => {
    const variables = [...new Set(SERVICES.flatMap(configVariables))].sort();
    expect(variables.length).toBeGreaterThan(0);
    expect(variables.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('lists in its configuration table only variables a service still reads', () => {
    const section = /\n## Configuration\n([\s\S]*?)\n## /.exec(doc)?.[1] ?? '';
    const listed = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((match) => match[1]!);
    expect(listed.length).toBeGreaterThan(0);
    const read = new Set(SERVICES.flatMap(configVariables));
    expect(listed.filter((name) => !read.has(name))).toEqual([]);
  });

  it('explains every metric the services export', () => {
    const metrics = metricNames();
    expect(metrics).toEqual(
      expect.arrayContaining(['http_request_duration_seconds', 'redirects_total']),
    );
    expect(metrics.filter((name) => !doc.includes(`\`${name}`))).toEqual([]);
  });
});
