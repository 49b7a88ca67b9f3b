import { analyticsApi, type AccountStats } from '@shortener/contracts/web-analytics';
import { apiRequest, type ApiResult } from '../../../lib/api';

/**
 * publicApi.getAnalytics with the page's query (viewQuery): the account's statistics. A 400
 * says which value of the query it refuses, a 401 carries the server's message (and signs
 * out); anything else reads 'Server error'.
 */
export function getAnalytics(query: Record<string, string>): Promise<ApiResult<AccountStats>> {
  return apiRequest(
    analyticsApi.getAnalytics,
    { showsServerMessage: (status) => status === 400 || status === 401 },
    { query },
  );
}
