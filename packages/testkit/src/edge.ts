import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { freePort } from './ports';
import { REPO_ROOT } from './services';
import { waitFor } from './wait';

export interface EdgeProcess {
  /** Where clients reach it: http://127.0.0.1:{port}. */
  url: string;
  port: number;
  child: ChildProcess;
  /** What it printed (nginx's errors included). */
  output(): string;
  /** Stops it (nginx finishes the requests in flight first). */
  stop(): Promise<void>;
}

/**
 * The nginx edge `npm run stack` puts in front of the services (infra/edge.mjs, run as an
 * operator runs it), on loopback in front of `redirect` and `gateway` (each host:port; the
 * redirect service's may be unix:/path, its UNIX_SOCKET); `ownHosts` its --own-hosts (the
 * product's host names; any other is a branded domain's).
 * Fails, with what it printed, when it does not listen (no nginx, say).
 */
export async function startEdge(
  redirect: string,
  gateway: string,
  port?: number,
  ownHosts?: readonly string[],
): Promise<EdgeProcess> {
  const listenOn = port ?? (await freePort());
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'infra', 'edge.mjs'),
      '--port',
      String(listenOn),
      '--redirect',
      redirect,
      '--gateway',
      gateway,
      ...(ownHosts === undefined ? [] : ['--own-hosts', ownHosts.join(',')]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const ended = once(child, 'exit');
    child.kill('SIGTERM');
    await ended;
  };
  let ended = false;
  child.once('exit', () => (ended = true));
  const ready = () => printed.includes('Edge ready');
  try {
    await waitFor(() => ended || ready(), { timeoutMs: 15_000, what: 'the edge to listen' });
  } catch (error) {
    await stop();
    throw error;
  }
  if (!ready()) throw new Error(`the edge did not start:\n${printed}`);
  return {
    url: `http://127.0.0.1:${listenOn}`,
    port: listenOn,
    child,
    output: () => printed,
    stop,
  };
}
