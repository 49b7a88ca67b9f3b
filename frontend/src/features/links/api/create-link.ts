import { linkRulesApi } from '@shortener/contracts/web-link-rules';
import { MESSAGES, type ExpiryDays } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';
import { shortLinkFor } from '../../../lib/url';

/** The link made: its code (its page's) and its short URL (the API's own on a domain). */
export interface CreatedLink {
  code: string;
  shortLink: string;
}

/**
 * publicApi.createLinks with one link: the way to a link on a domain or with rules (shorten's
 * query takes neither). The call answers 200 with each link's own status: a link refused
 * reads as a failure with its message (the alias taken, a rule's URL refused...).
 */
export async function createLink(
  url: string,
  days: ExpiryDays,
  alias: string,
  options: Record<string, unknown>,
): Promise<ApiResult<CreatedLink>> {
  const result = await apiRequest(
    linkRulesApi.createLinks,
    { showsServerMessage: (status) => status >= 400 && status < 500 },
    { body: [{ url, days, ...(alias === '' ? {} : { alias }), ...options }] },
  );
  if (!result.ok) return result;
  const [link] = result.data.results;
  if (link?.status === 201 && link.url !== undefined) {
    return {
      ok: true,
      headers: result.headers,
      data: { code: link.url, shortLink: link.shortUrl ?? shortLinkFor(link.url) },
    };
  }
  return {
    ok: false,
    status: link?.status ?? 0,
    message: link?.message ?? MESSAGES.serverError,
    signedOut: false,
  };
}
