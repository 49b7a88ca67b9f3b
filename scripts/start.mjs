// `npm start`: the product on http://localhost:8080 in one process (the embedded mode),
// with nothing to install but Node. Builds first when the build is missing or stale.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProduct } from './lib/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const firstRun = !existsSync(path.join(root, 'services/embedded/dist/main.js'));
console.log(firstRun ? 'Building (first run only, about a minute)...' : 'Checking the build...');
if (!(await buildProduct(root))) {
  console.error('The build failed; see the errors above.');
  process.exit(1);
}
await import(path.join(root, 'services/embedded/dist/main.js'));
