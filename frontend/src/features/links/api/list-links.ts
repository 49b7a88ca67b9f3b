import {
  NEXT_CURSOR_HEADER,
  TOTAL_COUNT_HEADER,
  type LinksSort,
  type ShortLink,
  webApi,
} from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';
import { countOf } from '../../../lib/count-header';

export interface LinksPage {
  /** In the order asked for (newest first unless told). */
  links: ShortLink[];
  /** Where the next page starts, or null on the last page. */
  nextCursor: string | null;
  /** How many links the listing holds in all; null when the server did not say. */
  total: number | null;
}

/**
 * publicApi.listLinks [?cursor=...][&q=...][&sort=...]: one page of the user's links, those
 * containing `q` when given, in the order `sort` names (newest first by default). 400 and 401
 * show the server's message, anything else 'Server error'.
 */
export async function listLinks(
  options: { cursor?: string | null; q?: string; sort?: LinksSort } = {},
): Promise<ApiResult<LinksPage>> {
  const { cursor, q, sort } = options;
  const result = await apiRequest(
    webApi.listLinks,
    { showsServerMessage: (status) => status === 400 || status === 401 },
    {
      query: {
        cursor: cursor || undefined,
        q: q || undefined,
        sort: sort === 'newest' ? undefined : sort,
      },
    },
  );
  if (!result.ok) return result;
  return {
    ...result,
    data: {
      links: result.data,
      nextCursor: result.headers.get(NEXT_CURSOR_HEADER) || null,
      total: countOf(result.headers.get(TOTAL_COUNT_HEADER)),
    },
  };
}
