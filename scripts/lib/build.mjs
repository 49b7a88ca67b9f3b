// What `npm start` and `npm run stack` serve, built before they serve it: the services
// (incremental `tsc -b`, seconds when nothing changed) and, when it is not built yet, the web
// app the gateway serves from frontend/dist.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { run as runCommand } from './processes.mjs';

/**
 * Whether the web app must be built: the gateway serves FRONTEND_DIR (frontend/dist unless
 * set, relative to the repository, where the runners start it) and it lacks the pages the
 * gateway serves (WEB_APP_PAGES in packages/contracts), as an older or missing build does.
 * A FRONTEND_DIR elsewhere is someone else's build: only this checkout's is built here.
 */
function webAppNeedsBuild(root, env = process.env) {
  const own = path.join(root, 'frontend', 'dist');
  const served = env.FRONTEND_DIR ? path.resolve(root, env.FRONTEND_DIR) : own;
  const pages = ['index.html', 'index.signed-in.html', 'app.html', 'settings.signed-in.html'];
  return served === own && !pages.every((page) => existsSync(path.join(own, page)));
}

/** Builds the services, then the web app if it is missing; resolves false if a build failed. */
export async function buildProduct(
  root,
  { env = process.env, run = runCommand, log = console.log } = {},
) {
  if ((await run('npx', ['tsc', '-b'], { cwd: root })) !== 0) return false;
  if (!webAppNeedsBuild(root, env)) return true;
  log('Building the web app...');
  const args = ['run', 'build', '--silent', '--workspace', 'frontend'];
  return (await run('npm', args, { cwd: root })) === 0;
}
