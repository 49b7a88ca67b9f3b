// Imported first by main.ts, before anything else is loaded.
import path from 'node:path';

/**
 * V8's young generation capped at 1 MB a semi-space. By default it grows with the machine's
 * memory, both its halves resident once used and kept after start-up and after a load, while
 * the embedded mode's requests leave little garbage each
 * (docs/reliability/performance.md#the-embedded-mode). V8 reads the size only when a process
 * starts, so a process started without it (`npm start` imports main.js into its own
 * process; `node dist/main.js` names no flags) replaces itself by one that has it: execve,
 * the same process (its id, standard streams, environment and arguments), before anything
 * else is loaded. A size chosen on the command line or in NODE_OPTIONS is kept, and where
 * there is no execve (Windows, Node before 22.15) the process runs as started.
 */
const SEMI_SPACE_FLAG = '--max-semi-space-size';
const SEMI_SPACE_MB = 1;

function sizeChosen(): boolean {
  const given = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  return given.some((arg) => /^--max[-_]semi[-_]space[-_]size\b/.test(arg));
}

if (!sizeChosen() && process.execve && process.platform !== 'win32') {
  const main = path.join(__dirname, 'main.js');
  process.execve(process.execPath, [
    process.execPath,
    `${SEMI_SPACE_FLAG}=${SEMI_SPACE_MB}`,
    ...process.execArgv,
    main,
    ...process.argv.slice(2),
  ]);
}
