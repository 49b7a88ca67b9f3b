import { ConfigError } from './config';

/**
 * Turns what commonly stops a service at start-up into one line that says what to do, and
 * exits; anything unexpected keeps its stack so it can be reported.
 */
export function exitOnStartupError(service: string, error: unknown, port?: number): never {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // A listen error names its port.
  port ??= (error as { port?: number } | undefined)?.port;
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (code === 'EADDRINUSE') {
    process.stderr.write(
      `${service}: port ${port ?? '?'} is already in use: stop what uses it or set PORT to a free port\n`,
    );
  } else if (code === 'EACCES') {
    process.stderr.write(
      `${service}: not allowed to listen on port ${port ?? '?'}: set PORT to a port above 1024\n`,
    );
  } else {
    process.stderr.write(
      `${service}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
}

/**
 * A program's entry point (a service's main.ts): runs its start-up, and if that fails, says
 * why in one line and exits (see exitOnStartupError).
 */
export function runMain(service: string, main: () => Promise<unknown>): void {
  main().catch((error: unknown) => exitOnStartupError(service, error));
}
