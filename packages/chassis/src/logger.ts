import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export const REQUEST_ID_HEADER = 'x-request-id';
const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/;

/** JSON logs, one object a line, every line naming its service. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/** Keeps the caller's request id when it is well-formed, so one id follows a request across services. */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && REQUEST_ID_PATTERN.test(value) ? value : randomUUID();
}
