import { createServer } from 'node:net';
import { freePort, TEST_PORTS, testPorts } from './ports';

describe('freePort', () => {
  it('hands out ports outside the kernel’s ephemeral range, each once', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(TEST_PORTS.from);
      expect(port).toBeLessThan(TEST_PORTS.to);
    }
  });

  it('hands out a port that can be listened on', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it('takes its ports from the part of the range TEST_PORTS gives, and refuses a wrong one', () => {
    expect(testPorts(undefined)).toEqual({ from: 20_000, to: 32_000 });
    expect(testPorts('26000-32000')).toEqual({ from: 26_000, to: 32_000 });
    for (const wrong of ['26000', '1000-2000', '30000-26000', '20000-40000', 'a-b']) {
      expect(() => testPorts(wrong)).toThrow(/TEST_PORTS/);
    }
  });
});
