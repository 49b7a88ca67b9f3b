import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What a public HTTP server (or the nginx edge, infra/edge/shortener.conf.template, in the
 * same words) answers a request it cannot take whole: `{message}` in JSON, as every error.
 */
export const CLIENT_ERROR_MESSAGES = {
  badRequest: 'Bad request',
  headersTooLarge: 'Request headers too large',
  timedOut: 'Request timed out',
  /** The nginx edge's per-address connection cap. */
  tooManyConnections: 'Too many connections from your address',
} as const;

/** As body-parser decides it: a Transfer-Encoding, or a Content-Length other than 0. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Closes connections whose head or whole request is late (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS),
 * checked once a second rather than Node's 30 s; call before `listen`.
 */
export function limitRequestTimes(
  server: Server,
  config: { HEADERS_TIMEOUT_MS: number; REQUEST_TIMEOUT_MS: number },
): void {
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  // Node wants the head's limit within the whole request's.
  server.headersTimeout = Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS);
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1_000;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Answers what Node refuses before any handler sees a request (a head over its 16 KB, a
 * malformed one, a timeout) as every other error is answered, `{message}` in JSON with
 * `headers` (the security headers), instead of Node's empty body; then closes the connection.
 */
export function answerClientErrors(
  server: Server,
  headers: Readonly<Record<string, string>> = {},
): void {
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing is written into a connection that is gone, or whose answer has begun (the
    // test Node's own answer makes, on the response it keeps there).
    const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, CLIENT_ERROR_MESSAGES.headersTooLarge]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, CLIENT_ERROR_MESSAGES.timedOut]
          : [400, CLIENT_ERROR_MESSAGES.badRequest];
    const body = JSON.stringify({ message });
    // Closed once written: the server keeps half-open sockets, and this one is done.
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        extra +
        'connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  });
}
