import { serviceNodeArgs, serviceNodeOptions } from './service-process';

describe('the Node settings a service is started with, as in production', () => {
  it('puts the redirect service’s command-line flags before its entry', () => {
    expect(serviceNodeArgs('redirect')).toEqual(['--single-threaded-gc']);
    expect(serviceNodeArgs('links')).toEqual([]);
  });

  it('gives NODE_OPTIONS the package’s options, then the caller’s', () => {
    expect(serviceNodeOptions('redirect', { NODE_OPTIONS: '--stack-trace-limit=5' })).toBe(
      '--max-semi-space-size=2 --max-old-space-size=256 --stack-trace-limit=5',
    );
    expect(serviceNodeOptions('links')).toBeUndefined();
  });
});
