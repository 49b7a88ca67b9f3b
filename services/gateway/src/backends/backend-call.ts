import { BadGatewayException, HttpException, ServiceUnavailableException } from '@nestjs/common';
import type {
  InternalAnswer,
  InternalCallInput,
  InternalEndpoint,
  InternalError,
} from '@shortener/contracts';
import {
  InternalAnswerError,
  InternalServiceError,
  type CallOptions,
  type InternalClient,
} from '@shortener/chassis';

export const SERVICE_UNAVAILABLE = 'A service is unavailable right now, please try again shortly.';
export const BAD_ANSWER = 'Server error';

/**
 * One internal call, with what can go wrong in the network turned into what the browser
 * should see: an unreachable service is 503, an answer that breaks its contract (a status
 * the endpoint does not list, a body its schema refuses) is 502. The statuses the
 * endpoint lists come back, parsed, for the caller to handle.
 */
export async function callBackend<E extends InternalEndpoint>(
  client: InternalClient,
  endpoint: E,
  input: InternalCallInput<E> & CallOptions,
): Promise<InternalAnswer<E>> {
  try {
    return await client.call(endpoint, input);
  } catch (error) {
    if (error instanceof InternalServiceError) {
      throw new ServiceUnavailableException({ message: SERVICE_UNAVAILABLE, cause: error.message });
    }
    if (error instanceof InternalAnswerError) {
      throw new BadGatewayException({ message: BAD_ANSWER, cause: error.message });
    }
    throw error;
  }
}

/** Passes an internal refusal (400, 403, 404...) on with its status and message. */
export function refusal(response: { status: number; body: InternalError }): HttpException {
  return new HttpException({ message: response.body.message }, response.status);
}
