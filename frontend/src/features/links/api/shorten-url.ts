import {
  shortenResponseSchema,
  type ExpiryDays,
  type ShortenResponse,
} from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

/**
 * POST /api/shorten/?url={url}&days={days}, no body. A 403 shows the server's message (the
 * server answers every refusal of a URL this page accepts, its rate limit included, with a
 * 403); anything else reads 'Server error' (SPEC section 8).
 */
export function shortenUrl(url: string, days: ExpiryDays): Promise<ApiResult<ShortenResponse>> {
  return apiRequest(
    'POST',
    `/api/shorten/?url=${encodeURIComponent(url)}&days=${String(days)}`,
    shortenResponseSchema,
    { showsServerMessage: (status) => status === 403 },
  );
}
