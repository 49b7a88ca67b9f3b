import { webApi, type ShortLink } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

const SHOWS_SERVER_MESSAGE = new Set([401, 404]);

/** publicApi.restoreLink: undoes a delete within its window. */
export function restoreLink(urlID: string): Promise<ApiResult<ShortLink>> {
  return apiRequest(
    webApi.restoreLink,
    { showsServerMessage: (status) => SHOWS_SERVER_MESSAGE.has(status) },
    { params: { urlID } },
  );
}
