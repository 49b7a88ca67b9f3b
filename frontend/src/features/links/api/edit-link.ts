import { webApi, type EditLinkBody, type ShortLink } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

/** The refusals whose message says what to fix (the URL, the days, a rule, a back-half taken on the domain) or that the link is gone. */
const SHOWS_SERVER_MESSAGE = new Set([400, 401, 403, 404, 409]);

/** publicApi.editLink: a new destination, a new expiry from now, or both. */
export function editLink(urlID: string, change: EditLinkBody): Promise<ApiResult<ShortLink>> {
  return apiRequest(
    webApi.editLink,
    { showsServerMessage: (status) => SHOWS_SERVER_MESSAGE.has(status) },
    { params: { urlID }, body: change },
  );
}
