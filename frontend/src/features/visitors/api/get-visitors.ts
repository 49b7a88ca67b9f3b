import {
  MESSAGES,
  NEXT_CURSOR_HEADER,
  visitorsResponseSchema,
  type Visit,
} from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

export interface VisitorsPage {
  /** Newest first. */
  visits: Visit[];
  /** Where the next page starts, or null on the last page. */
  nextCursor: string | null;
}

/**
 * GET /api/visitors/{urlID}[?cursor=...]: one page of visits. A 401 carries the server's
 * message and callBack, a 404 reads 'No visitors', anything else 'Server error'.
 */
export async function getVisitors(
  urlID: string,
  cursor?: string,
): Promise<ApiResult<VisitorsPage>> {
  const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
  const result = await apiRequest(
    'GET',
    `/api/visitors/${encodeURIComponent(urlID)}${query}`,
    visitorsResponseSchema,
    { showsServerMessage: (status) => status === 401, fixed: { 404: MESSAGES.noVisitors } },
  );
  if (!result.ok) return result;
  return {
    ...result,
    data: { visits: result.data, nextCursor: result.headers.get(NEXT_CURSOR_HEADER) || null },
  };
}
