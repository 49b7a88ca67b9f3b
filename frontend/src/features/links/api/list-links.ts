import { linksResponseSchema, NEXT_CURSOR_HEADER, type ShortLink } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

export interface LinksPage {
  /** Newest first. */
  links: ShortLink[];
  /** Where the next page starts, or null on the last page. */
  nextCursor: string | null;
}

/**
 * GET /api/links[?cursor=...][&q=...]: one page of the user's links, those containing `q`
 * when given. 400 and 401 show the server's message, anything else 'Server error'.
 */
export async function listLinks(
  options: { cursor?: string | null; q?: string } = {},
): Promise<ApiResult<LinksPage>> {
  const query = new URLSearchParams();
  if (options.cursor) query.set('cursor', options.cursor);
  if (options.q) query.set('q', options.q);
  const search = query.toString();
  const result = await apiRequest(
    'GET',
    `/api/links${search ? `?${search}` : ''}`,
    linksResponseSchema,
    { showsServerMessage: (status) => status === 400 || status === 401 },
  );
  if (!result.ok) return result;
  return {
    ...result,
    data: { links: result.data, nextCursor: result.headers.get(NEXT_CURSOR_HEADER) || null },
  };
}
