import { shortenResponseSchema, type ExpiryDays, type ShortenResponse } from '@shortener/contracts';
import { apiRequest, isClientError, type ApiResult } from '../../../lib/api';

/**
 * POST /api/shorten/?url={url}&days={days}, no body. A 403 shows the server's message; so do
 * the other refusals the spec leaves open (400 invalid URL, 429 too many requests). Anything
 * else reads 'Server error'.
 */
export function shortenUrl(url: string, days: ExpiryDays): Promise<ApiResult<ShortenResponse>> {
  return apiRequest(
    'POST',
    `/api/shorten/?url=${encodeURIComponent(url)}&days=${String(days)}`,
    shortenResponseSchema,
    { showsServerMessage: isClientError },
  );
}
