import { MESSAGES, NEXT_CURSOR_HEADER, webApi, type Visit } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

export interface VisitorsPage {
  /** Newest first. */
  visits: Visit[];
  /** Where the next page starts, or null on the last page. */
  nextCursor: string | null;
}

/**
 * publicApi.getVisitors [?cursor=...]: one page of visits. A 401 carries the server's
 * message and callBack, a 404 reads 'No visitors', anything else 'Server error'.
 */
export async function getVisitors(
  urlID: string,
  cursor?: string,
): Promise<ApiResult<VisitorsPage>> {
  const result = await apiRequest(
    webApi.getVisitors,
    { showsServerMessage: (status) => status === 401, fixed: { 404: MESSAGES.noVisitors } },
    { params: { urlID }, query: { cursor: cursor || undefined } },
  );
  if (!result.ok) return result;
  return {
    ...result,
    data: { visits: result.data, nextCursor: result.headers.get(NEXT_CURSOR_HEADER) || null },
  };
}
