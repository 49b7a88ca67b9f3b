import type { IncomingMessage } from 'node:http';
import { json, raw, urlencoded, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { hasBody } from '@shortener/chassis';

/** What a request body may be read as: JSON, an HTML form, or any bytes (read, not kept). */
export type BodyKind = 'json' | 'form' | 'any';

export interface RequestBodyOptions {
  /** Largest body accepted, in bytes, after decoding. */
  limit: number;
  kinds: BodyKind[];
  logger: Logger;
}

export type WithRawBody = IncomingMessage & {
  /** The body bytes as read (after Content-Encoding), when a parser read one. */
  rawBody?: Buffer;
};

type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;

/** What a service reads at most by default: its internal calls and forms are small. */
export const DEFAULT_BODY_LIMIT = 16 * 1024;

export const BODY_MESSAGES = {
  tooLarge: 'Request body too large',
  unreadable: 'Request body could not be read',
  unsupported: 'Unsupported request body encoding',
} as const;

const ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);

function keepRawBody(req: IncomingMessage, _res: unknown, body: Buffer): void {
  (req as WithRawBody).rawBody = body;
}

/** An error of body-parser (http-errors) as the answer and the reason to log. */
function refusalOf(error: unknown): { status: number; message: string; reason: string } {
  const { status, type, code } = (error ?? {}) as {
    status?: unknown;
    type?: unknown;
    code?: unknown;
  };
  const reason = typeof type === 'string' ? type : typeof code === 'string' ? code : 'unreadable';
  if (status === 413) return { status, message: BODY_MESSAGES.tooLarge, reason };
  if (status === 415) return { status, message: BODY_MESSAGES.unsupported, reason };
  return { status: 400, message: BODY_MESSAGES.unreadable, reason };
}

/**
 * Reads a request body within a size limit and answers a body it cannot take itself:
 * 413 over the limit (by Content-Length before reading anything, or while reading a chunked
 * or compressed one), 415 for an encoding we do not decode, 400 for one that does not
 * decode or parse. The answer is `{message}`, the log one warn line naming the reason: a
 * client's bad body is not our error, and has no stack worth keeping. The bytes read stay
 * on `req.rawBody`, for checks that cover the body exactly (internal tokens). With no
 * `kinds`, only what the headers declare is checked, for a body streamed on to a service.
 */
export function readRequestBody(options: RequestBodyOptions): RequestHandler {
  const common = { limit: options.limit, verify: keepRawBody };
  const parsers: RequestHandler[] = options.kinds.map((kind) => {
    switch (kind) {
      case 'json':
        return json(common);
      case 'form':
        return urlencoded({ ...common, extended: false });
      case 'any':
        return raw({ ...common, type: () => true });
    }
  });

  const refuse = (
    req: Request & { id?: unknown },
    res: Response,
    refusal: { status: number; message: string; reason: string },
  ): void => {
    options.logger.warn(
      { reqId: req.id, status: refusal.status, reason: refusal.reason },
      'request body refused',
    );
    if (res.headersSent) {
      res.end();
      return;
    }
    // What the client still sends is not worth reading: the connection closes after this.
    res.setHeader('connection', 'close');
    res.status(refusal.status).json({ message: refusal.message });
  };

  return (req, res, next) => {
    if (!hasBody(req)) return next();
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > options.limit) {
      return refuse(req, res, {
        status: 413,
        message: BODY_MESSAGES.tooLarge,
        reason: 'declared.too.large',
      });
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (!ENCODINGS.has(encoding)) {
      return refuse(req, res, {
        status: 415,
        message: BODY_MESSAGES.unsupported,
        reason: 'encoding.unsupported',
      });
    }
    const run = (index: number): void => {
      const parser = parsers[index];
      if (!parser) return next();
      parser(req, res, (error?: unknown) =>
        error ? refuse(req, res, refusalOf(error)) : run(index + 1),
      );
    };
    run(0);
  };
}
