// `npm start`: the product on http://localhost:8080 in one process (the embedded mode),
// with nothing to install but Node. Builds first when the build is missing or stale.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './lib/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function build() {
  const firstRun = !existsSync(path.join(root, 'services/embedded/dist/main.js'));
  console.log(firstRun ? 'Building (first run only, about a minute)...' : 'Checking the build...');
  // Incremental: a second start with nothing changed takes a few seconds.
  if ((await run('npx', ['tsc', '-b'], { cwd: root })) !== 0) return false;
  if (!existsSync(path.join(root, 'frontend/dist/index.html'))) {
    console.log('Building the web app...');
    const code = await run('npm', ['run', 'build', '--silent', '--workspace', 'frontend'], {
      cwd: root,
    });
    if (code !== 0) return false;
  }
  return true;
}

if (!(await build())) {
  console.error('The build failed; see the errors above.');
  process.exit(1);
}
await import(path.join(root, 'services/embedded/dist/main.js'));
