import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceNodeArgs, serviceNodeOptions } from './service-process';

describe('the Node settings a service is started with, as in production', () => {
  it('puts the redirect service’s command-line flags before its entry', () => {
    expect(serviceNodeArgs('redirect')).toEqual(['--single-threaded-gc']);
    expect(serviceNodeArgs('links')).toEqual([]);
  });

  it('gives NODE_OPTIONS the package’s options, then the caller’s', () => {
    expect(serviceNodeOptions('redirect', { NODE_OPTIONS: '--stack-trace-limit=5' })).toBe(
      '--max-semi-space-size=2 --max-old-space-size=256 --disable-warning=TimeoutNegativeWarning --stack-trace-limit=5',
    );
    expect(serviceNodeOptions('links')).toBeUndefined();
  });

  it('reads them from the build it starts: another release’s, for a rolling upgrade', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'other-release-'));
    try {
      mkdirSync(path.join(root, 'services', 'redirect'), { recursive: true });
      writeFileSync(
        path.join(root, 'services', 'redirect', 'package.json'),
        JSON.stringify({ config: { nodeOptions: '--max-old-space-size=128', nodeArgs: '' } }),
      );
      expect(serviceNodeArgs('redirect', root)).toEqual([]);
      expect(serviceNodeOptions('redirect', {}, root)).toBe('--max-old-space-size=128');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
