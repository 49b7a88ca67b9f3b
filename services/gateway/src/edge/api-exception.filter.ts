import {
  Catch,
  HttpException,
  HttpStatus,
  Inject,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { MESSAGES, type ErrorResponse } from '@shortener/contracts';
import { SERVICE_LOGGER } from '@shortener/chassis-nest';

function describe(exception: HttpException): ErrorResponse & { cause?: unknown } {
  const answer = exception.getResponse();
  if (typeof answer === 'string') return { message: answer };
  const { message, callBack, cause } = answer as Record<string, unknown>;
  const text = Array.isArray(message) ? message.join('; ') : message;
  return {
    message: typeof text === 'string' ? text : exception.message,
    ...(typeof callBack === 'string' ? { callBack } : {}),
    ...(cause === undefined ? {} : { cause }),
  };
}

/**
 * Every error the gateway answers is `{message}` (plus `callBack` on 401), as SPEC.md's
 * catalogue expects; what went wrong inside stays in the logs, never in the answer.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(SERVICE_LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request & { id?: unknown }>();
    let status: number = HttpStatus.INTERNAL_SERVER_ERROR;
    let body: ErrorResponse = { message: MESSAGES.serverError };
    if (exception instanceof HttpException) {
      status = exception.getStatus();
      const { cause, ...answer } = describe(exception);
      body = answer;
      if (status >= 500) {
        this.logger.warn(
          { reqId: req.id, status, cause, answer: answer.message },
          'request failed',
        );
      }
    } else {
      this.logger.error({ reqId: req.id, err: exception }, 'unexpected error');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json(body);
  }
}
