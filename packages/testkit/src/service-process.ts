import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listeningPorts } from './process-sockets';
import { REPO_ROOT, serviceSpec, type ServiceName } from './services';
import { waitFor } from './wait';

export interface ServiceProcess {
  name: string;
  /** The checkout whose build this is (REPO_ROOT, or another release's). */
  root: string;
  url: string;
  port: number;
  /**
   * Where /readyz and /metrics answer this test: the ops port when OPS_PORT is given,
   * otherwise the service's own port (the tests call from loopback, not through a proxy).
   */
  opsUrl: string;
  child: ChildProcess;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** Everything the process printed so far, for assertions and for failure messages. */
  output(): string;
  /** Sends a signal and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Whether `child` listens on `port` (read from /proc; taken on trust elsewhere). */
function listensOn(child: ChildProcess, port: number): boolean {
  if (process.platform !== 'linux' || child.pid === undefined) return true;
  try {
    return listeningPorts(child.pid).includes(port);
  } catch {
    return false; // exited meanwhile
  }
}

/**
 * The Node options a service runs with in production (`config.nodeOptions` in its
 * package.json, also the NODE_OPTIONS of its image), followed by any given in `env`,
 * which win where they overlap.
 */
export function serviceNodeOptions(
  name: ServiceName,
  env: NodeJS.ProcessEnv = {},
  root = REPO_ROOT,
): string | undefined {
  return (
    [nodeConfig(name, root).nodeOptions, env.NODE_OPTIONS].filter(Boolean).join(' ') || undefined
  );
}

/**
 * The flags a service's `node` command line carries in production (`config.nodeArgs` in its
 * package.json, also in its image's command): V8 flags that NODE_OPTIONS does not accept.
 */
export function serviceNodeArgs(name: ServiceName, root = REPO_ROOT): string[] {
  return nodeConfig(name, root).nodeArgs?.split(/\s+/).filter(Boolean) ?? [];
}

function nodeConfig(name: ServiceName, root: string): { nodeOptions?: string; nodeArgs?: string } {
  const manifest = JSON.parse(
    readFileSync(path.join(root, 'services', name, 'package.json'), 'utf8'),
  ) as { config?: { nodeOptions?: string; nodeArgs?: string } };
  return manifest.config ?? {};
}

/**
 * Starts a built service (its entry in the service list, services/<name>/dist/main.js) as its
 * own process, as the stack runner does, and waits until it answers /healthz. It listens on 127.0.0.1 unless `host`
 * says otherwise (0.0.0.0 to be reached from another address of this machine). `root` is the
 * checkout whose build runs: this one unless given (another release's, for rolling upgrades).
 */
export async function startServiceProcess(
  name: ServiceName,
  port: number,
  env: NodeJS.ProcessEnv,
  { waitForHealth = true, host = '127.0.0.1', root = REPO_ROOT, healthTimeoutMs = 20_000 } = {},
): Promise<ServiceProcess> {
  const entry = path.join(root, 'services', name, serviceSpec(name).entry);
  const child = spawn(process.execPath, [...serviceNodeArgs(name, root), entry], {
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      ...env,
      NODE_OPTIONS: serviceNodeOptions(name, { ...process.env, ...env }, root),
      PORT: String(port),
      HOST: host,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    name,
    root,
    url,
    port,
    opsUrl: env['OPS_PORT'] ? `http://127.0.0.1:${env['OPS_PORT']}` : url,
    child,
    exited,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
  if (waitForHealth) {
    try {
      const healthy = waitFor(
        async () => {
          const response = await fetch(`${url}/healthz`);
          // Answered by this process, not by another that holds the port it failed to bind.
          return response.ok && listensOn(child, port);
        },
        { timeoutMs: healthTimeoutMs, what: `${name} /healthz` },
      );
      const died = exited.then((code) => {
        throw new Error(`${name} exited with ${code} before answering /healthz`);
      });
      await Promise.race([healthy, died]);
    } catch (error) {
      await service.stop('SIGKILL');
      throw new Error(`${(error as Error).message}\n--- ${name} output ---\n${output}`);
    }
  }
  return service;
}

/** Waits until a service answers /readyz on its ops URL (its dependencies are usable). */
export function untilReady(service: ServiceProcess, timeoutMs = 20_000): Promise<boolean> {
  return waitFor(async () => (await fetch(`${service.opsUrl}/readyz`)).ok, {
    what: `${service.name} on port ${service.port} to answer /readyz`,
    timeoutMs,
    intervalMs: 50,
  });
}

/**
 * Resolves once a process has written the log lines of the requests it answered so far: it
 * has logged a later request of its own (a marker). A process that has logged no request
 * (redirect logs none) has none to write.
 */
export async function untilLogsWritten(service: ServiceProcess, timeoutMs = 5000): Promise<void> {
  if (!service.output().includes('"msg":"request ')) return;
  const marker = randomUUID();
  await fetch(`${service.url}/no-such-route`, { headers: { 'x-request-id': marker } });
  await waitFor(() => service.output().includes(marker), {
    what: `${service.name} on port ${service.port} to log the marker request ${marker}`,
    timeoutMs,
  });
}
