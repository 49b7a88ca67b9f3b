import { MESSAGES, webApi, type DeleteResponse } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

const SHOWS_SERVER_MESSAGE = new Set([401, 404, 500]);

/**
 * publicApi.deleteLink: 401, 404 and 500 show the server's message, other statuses
 * 'Server error', and an answer that cannot be read 'Unexpected error occurred' (no answer
 * at all reads 'Cannot reach the server', as every call does).
 */
export function deleteLink(urlID: string): Promise<ApiResult<DeleteResponse>> {
  return apiRequest(
    webApi.deleteLink,
    {
      showsServerMessage: (status) => SHOWS_SERVER_MESSAGE.has(status),
      exception: MESSAGES.unexpected,
    },
    { params: { urlID } },
  );
}
