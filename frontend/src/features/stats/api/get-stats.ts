import { MESSAGES } from '@shortener/contracts/web';
import { statsApi, type LinkStats, type StatsRange } from '@shortener/contracts/web-stats';
import { apiRequest, type ApiResult } from '../../../lib/api';

/**
 * publicApi.getStats ?range=: a link's statistics over a range. A 401 carries the server's
 * message (and signs out), a 404 reads 'Url not found', anything else 'Server error'.
 */
export function getStats(urlID: string, range: StatsRange): Promise<ApiResult<LinkStats>> {
  return apiRequest(
    statsApi.getStats,
    { showsServerMessage: (status) => status === 401, fixed: { 404: MESSAGES.urlNotFound } },
    { params: { urlID }, query: { range } },
  );
}
