import type { Server } from 'node:http';

/** The variable every service reads for its connections' idle time (see env.keepAliveTimeout). */
export interface KeepAliveConfig {
  KEEP_ALIVE_TIMEOUT_MS: number;
}

/**
 * How long the server keeps an idle connection open for the next request. It must outlast
 * the idle timeout of the proxy in front, so that the proxy closes first: a proxy that sends
 * a request down a connection at the moment the service closes it gets a reset (a 502 to its
 * client) for a request the service never saw.
 */
export function keepIdleConnections(server: Server, config: KeepAliveConfig): void {
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
}
