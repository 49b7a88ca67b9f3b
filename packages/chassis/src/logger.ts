import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export const REQUEST_ID_HEADER = 'x-request-id';
const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/;

/** A request target without its query or fragment. */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

// A query or fragment after something URL-like (a path or a scheme), or one that holds a
// parameter (`?name=value`, even after a bare host); up to the next blank, quote or
// backslash, so that cleaning a JSON line never breaks one of its escapes.
const QUERY_AFTER_URL = /((?:\/|\b[a-z][\w+.-]*:)[^\s?#"'<>`\\]*)[?#][^\s"'<>`\\]*/gi;
const QUERY_WITH_PARAMETER = /(\S)\?[^\s"'<>`\\=]*=[^\s"'<>`\\]*/g;

/** A text with every URL's query and fragment taken out: `/a?b=c` becomes `/a`. */
export function withoutQueries(text: string): string {
  if (!text.includes('?') && !text.includes('#')) return text;
  return text.replace(QUERY_AFTER_URL, '$1').replace(QUERY_WITH_PARAMETER, '$1');
}

/**
 * An error as pino writes it, less the values bound to a failed SQL query (`parameters`,
 * here or in an error it holds): they are what a user sent (a search, a URL, a name).
 */
function errorWithoutParameters(error: unknown): unknown {
  // Copies, so that what the caller holds is left as it was.
  const strip = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || depth > 4) {
      return value;
    }
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'parameters')
        .map(([key, nested]) => [key, strip(nested, depth + 1)]),
    );
  };
  return strip(pino.stdSerializers.err(error as Error), 0);
}

/**
 * JSON logs, one object a line, every line naming its service. No line carries a URL's
 * query or fragment (shortened URLs hold tokens, callbacks hold OAuth codes): each line is
 * cleaned as it is written, whatever produced it (a request log, an error's message, stack
 * or `input`, a message), at every level; nor a failed SQL query's parameters.
 */
export function createLogger(
  service: string,
  level = 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: errorWithoutParameters },
    hooks: { streamWrite: withoutQueries },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Keeps the caller's request id when it is well-formed, so one id follows a request across services. */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && REQUEST_ID_PATTERN.test(value) ? value : randomUUID();
}
