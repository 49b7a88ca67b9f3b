import { spawnSync } from 'node:child_process';
import path from 'node:path';

// In a process of its own: Jest's sandbox has a process object of its own, which Node's timers
// do not warn through. Runs the built package (npx tsc -b), as the services load it.
const PACKAGE = path.resolve(__dirname, '..', 'dist', 'index.js');

function stderrOf(script: string): string {
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(child.status).toBe(0);
  return child.stderr;
}

describe("kafkajs' negative timer", () => {
  it('prints no TimeoutNegativeWarning once the package is loaded, and every other warning', () => {
    const stderr = stderrOf(
      `require(${JSON.stringify(PACKAGE)});
       setTimeout(() => undefined, -1795892467723);
       process.emitWarning('kept', 'OtherWarning');
       process.emitWarning(Object.assign(new Error('also kept'), { name: 'ThirdWarning' }));`,
    );
    expect(stderr).not.toContain('TimeoutNegativeWarning');
    expect(stderr).toContain('OtherWarning: kept');
    expect(stderr).toContain('ThirdWarning: also kept');
  });

  it('is printed by the Node the tests run on without it (so the test above can fail)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    const stderr = stderrOf('setTimeout(() => undefined, -1795892467723);');
    // Node 23 and later warn; older lines ran such timers silently.
    expect(stderr.includes('TimeoutNegativeWarning')).toBe(major >= 23);
  });
});
