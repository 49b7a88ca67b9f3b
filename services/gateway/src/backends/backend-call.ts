import { BadGatewayException, HttpException, ServiceUnavailableException } from '@nestjs/common';
import type { z } from 'zod';
import {
  InternalServiceError,
  type CallerIdentity,
  type InternalClient,
  type InternalResponse,
} from '@shortener/chassis';

export const SERVICE_UNAVAILABLE = 'A service is unavailable right now, please try again shortly.';
export const BAD_ANSWER = 'Server error';

/**
 * One internal call, with what can go wrong in the network turned into what the browser
 * should see: an unreachable service is 503, an answer that breaks its contract is 502.
 * The statuses a caller expects come back for it to handle; any other is a 502.
 */
export async function callBackend(
  client: InternalClient,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { identity: CallerIdentity; requestId?: string; body?: unknown },
  expected: readonly number[],
): Promise<InternalResponse<unknown>> {
  let response: InternalResponse<unknown>;
  try {
    response = await client.request<unknown>(method, path, options);
  } catch (error) {
    if (error instanceof InternalServiceError) {
      throw new ServiceUnavailableException({ message: SERVICE_UNAVAILABLE, cause: error.message });
    }
    throw error;
  }
  if (!expected.includes(response.status)) {
    throw new BadGatewayException({
      message: BAD_ANSWER,
      cause: `${method} ${path} answered ${response.status}`,
    });
  }
  return response;
}

/** The body of an expected answer, checked against its contract. */
export function parseAnswer<Schema extends z.ZodType>(
  schema: Schema,
  response: InternalResponse<unknown>,
  what: string,
): z.infer<Schema> {
  const parsed = schema.safeParse(response.body);
  if (!parsed.success) {
    throw new BadGatewayException({ message: BAD_ANSWER, cause: `${what}: unexpected body` });
  }
  return parsed.data;
}

/** The `message` of an internal error answer, to pass on to the browser. */
export function messageOf(response: InternalResponse<unknown>, fallback: string): string {
  const body = response.body;
  if (typeof body === 'object' && body !== null && 'message' in body) {
    const message = body.message;
    if (typeof message === 'string') return message;
  }
  return fallback;
}

/** Passes an internal refusal (400, 403, 404...) on with its status and message. */
export function refusal(response: InternalResponse<unknown>, fallback: string): HttpException {
  return new HttpException({ message: messageOf(response, fallback) }, response.status);
}
