import {
  brandedShortUrl,
  shortLinkSchema,
  type InternalLink,
  type ShortLink,
} from '@shortener/contracts';

/**
 * A link as the public API answers it: the links service's fields (a branded link's domain
 * and rules only when set) and its visit count; a branded link also carries its full short
 * URL, so that no client builds one. A plain main-origin link answers SPEC's five fields.
 */
export function publicLink(link: InternalLink, visitCount: number): ShortLink {
  const { slug, ...fields } = link;
  return shortLinkSchema.parse({
    ...fields,
    visitCount,
    ...(link.domain && slug ? { shortUrl: brandedShortUrl(link.domain, slug) } : {}),
  });
}
