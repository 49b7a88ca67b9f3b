import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * Where test servers listen: below Linux's ephemeral range, so no outgoing connection or bind
 * to port 0 can take a port between its choice and the service's own bind.
 */
export const TEST_PORTS = testPorts(process.env.TEST_PORTS);

/**
 * The range ports are taken from (`to` excluded): 20000-32000, or a part of it given as
 * TEST_PORTS=from-to, so that test runs side by side (npm test's two lanes, each its own
 * process) never pick the same port: a free port checked by one could be bound by the other
 * before its own server bound it (seen in CI: nginx could not bind its edge's port).
 */
export function testPorts(given: string | undefined): { from: number; to: number } {
  if (given === undefined || given === '') return { from: 20_000, to: 32_000 };
  const [, from, to] = /^(\d+)-(\d+)$/.exec(given.trim())?.map(Number) ?? [];
  if (from === undefined || to === undefined || from < 20_000 || to > 32_000 || from >= to) {
    throw new Error(`TEST_PORTS must be from-to within 20000-32000, not ${given}`);
  }
  return { from, to };
}

/** Ports this process has handed out: each at most once, as a stack takes all before binding. */
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago on 127.0.0.1, never handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = randomInt(TEST_PORTS.from, TEST_PORTS.to);
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${TEST_PORTS.from} and ${TEST_PORTS.to}`);
}
