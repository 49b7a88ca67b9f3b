import { webApi, type ExpiryDays, type ShortenResponse } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

/**
 * publicApi.shorten, ?url={url}&days={days}, no body; `&alias=` too when one is chosen. A 403
 * shows the server's message (the server answers every refusal of a URL this page accepts,
 * its rate limit included, with a 403); with an alias, so does a 409 (the alias taken: a call
 * SPEC does not know); anything else reads 'Server error' (SPEC section 8).
 */
export function shortenUrl(
  url: string,
  days: ExpiryDays,
  alias = '',
): Promise<ApiResult<ShortenResponse>> {
  return apiRequest(
    webApi.shorten,
    { showsServerMessage: (status) => status === 403 || (alias !== '' && status === 409) },
    { query: { url, days: String(days), alias: alias === '' ? undefined : alias } },
  );
}
