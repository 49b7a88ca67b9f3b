import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// The local Kafka broker's folder (.infra/kafka) holds every visit's address, user agent and
// referrer in its segments, and broker.log: it is its user's alone, as the embedded mode's
// data folder is. infra/lib/kafka.mjs is an ES module, which Jest's CommonJS runtime cannot
// load: it runs in a child process here, starting a stand-in for java in a folder of its own
// exactly as it starts the broker.
const KAFKA = pathToFileURL(path.resolve(__dirname, '../../infra/lib/kafka.mjs')).href;
const PROBE = `
import { once } from 'node:events';
import { spawnBroker } from ${JSON.stringify(KAFKA)};
const [java, dir] = process.argv.slice(1);
const broker = spawnBroker(java, dir);
while (broker.exited() === null) await new Promise((resolve) => setTimeout(resolve, 20));
console.log(broker.exited());
`;

/** What a broker writes: a partition folder and a segment in its data folder, and a line. */
const STAND_IN_JAVA = `#!/bin/sh
mkdir -p data/visits-0
echo "203.0.113.9 Mozilla/5.0 https://referrer.example/" > data/visits-0/00000000000000000000.log
echo "broker started"
`;

const modeOf = (file: string): string => (statSync(file).mode & 0o777).toString(8);

describe('the local Kafka broker’s folder', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'kafka-folder-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  function startIn(dir: string): string {
    const java = path.join(scratch, 'java');
    writeFileSync(java, STAND_IN_JAVA, { mode: 0o755 });
    // Run with this process's umask (022 in a usual shell): what the broker writes must
    // not depend on it.
    const probe = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, java, dir], {
      encoding: 'utf8',
    });
    if (probe.status !== 0) throw new Error(`probe failed: ${probe.stderr}`);
    return probe.stdout.trim();
  }

  it('is made private: the folder 0700, what the broker writes 0700 and 0600, its log 0600', () => {
    const dir = path.join(scratch, 'kafka');
    expect(startIn(dir)).toBe('exit code 0');
    expect({
      folder: modeOf(dir),
      log: modeOf(path.join(dir, 'broker.log')),
      data: modeOf(path.join(dir, 'data')),
      partition: modeOf(path.join(dir, 'data', 'visits-0')),
      segment: modeOf(path.join(dir, 'data', 'visits-0', '00000000000000000000.log')),
    }).toEqual({ folder: '700', log: '600', data: '700', partition: '700', segment: '600' });
  });

  it('closes a folder an earlier version left open, and its log, at the next start', () => {
    const dir = path.join(scratch, 'kafka');
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(path.join(dir, 'data'), 0o755);
    writeFileSync(path.join(dir, 'broker.log'), 'an old line\n', { mode: 0o644 });
    chmodSync(path.join(dir, 'broker.log'), 0o644);
    expect(startIn(dir)).toBe('exit code 0');
    expect(modeOf(dir)).toBe('700');
    expect(modeOf(path.join(dir, 'broker.log'))).toBe('600');
  });
});
