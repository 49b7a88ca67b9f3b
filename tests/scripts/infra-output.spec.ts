import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// infra's status lines stay aligned, and readable when an address is longer than its column
// (`127.0.0.1:5432/shortener_faults`, the fault lane's database). ES modules: run in a child.
const OUTPUT = pathToFileURL(path.resolve(__dirname, '../../infra/lib/output.mjs')).href;

function line(name: string, address: string, text: string): string {
  const script =
    `const { reporter } = await import(${JSON.stringify(OUTPUT)});` +
    `reporter().line(...JSON.parse(process.argv[1]));`;
  const child = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify([name, address, text])],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return child.stdout.trimEnd();
}

describe("infra's status lines", () => {
  it('put the text in its column after a short address', () => {
    expect(line('Redis', '127.0.0.1:6379', 'ready')).toBe(
      `Redis       127.0.0.1:6379${' '.repeat(16)}ready`,
    );
  });

  it('keep a space between a long address and the text', () => {
    expect(line('PostgreSQL', '127.0.0.1:5432/shortener_faults', 'ready')).toBe(
      'PostgreSQL  127.0.0.1:5432/shortener_faults ready',
    );
  });
});
