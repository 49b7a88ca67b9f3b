import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  internalApi,
  isShortCode,
  MESSAGES,
  shortenResponseSchema,
  visitCountOf,
  type DeleteResponse,
  type EditLinkBody,
  type InternalLink,
  type LinkRuleField,
  type SessionUser,
  type ShortenQuery,
  type ShortenResponse,
  type ShortLink,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { ANALYTICS_CLIENT, LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';
import { publicLink } from '../backends/public-link';

/** A link's domain and rules as a caller gave them: the links service checks each. */
export type GivenRules = Partial<Record<'domain' | LinkRuleField, unknown>>;

/** Shorten, edit, delete and restore, as the links service does them for the caller. */
@Injectable()
export class LinksService {
  constructor(
    @Inject(LINKS_CLIENT) private readonly links: InternalClient,
    @Inject(ANALYTICS_CLIENT) private readonly analytics: InternalClient,
  ) {}

  /** The links service checks the URL and the expiry rules; its refusals pass through. */
  async shorten(
    query: ShortenQuery,
    user: SessionUser | null,
    requestId?: string,
  ): Promise<ShortenResponse> {
    const link = await this.create(query, {}, user, requestId);
    return shortenResponseSchema.parse({ url: link.urlID, loggedIn: user !== null });
  }

  /**
   * A link of a bulk call: shorten's, and where it lives and its rules as given (the links
   * service checks them, naming the field); a branded one answers its domain and short URL.
   */
  async createOne(
    query: ShortenQuery,
    rules: GivenRules,
    user: SessionUser,
    requestId?: string,
  ): Promise<{ url: string; domain?: string; shortUrl?: string }> {
    const link = await this.create(query, rules, user, requestId);
    const { domain, shortUrl } = publicLink(link, 0);
    return { url: link.urlID, ...(domain && shortUrl ? { domain, shortUrl } : {}) };
  }

  private async create(
    query: ShortenQuery,
    rules: GivenRules,
    user: SessionUser | null,
    requestId?: string,
  ): Promise<InternalLink> {
    const response = await callBackend(this.links, internalApi.createLink, {
      identity: { userId: user?.id ?? null },
      requestId,
      body: { url: query.url, days: query.days ?? null, alias: query.alias ?? null, ...rules },
    });
    if (response.status !== 201) throw refusal(response);
    return response.body;
  }

  /** Someone else's link answers exactly like an unknown one. */
  async remove(urlID: string, user: SessionUser, requestId?: string): Promise<DeleteResponse> {
    if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
    const response = await callBackend(this.links, internalApi.deleteLink, {
      params: { code: urlID },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);
    return { loggedIn: true };
  }

  /** The links service applies shorten's rules; someone else's link answers like an unknown one. */
  async edit(
    urlID: string,
    change: EditLinkBody,
    user: SessionUser,
    requestId?: string,
  ): Promise<ShortLink> {
    if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
    const response = await callBackend(this.links, internalApi.updateLink, {
      params: { code: urlID },
      identity: { userId: user.id },
      requestId,
      body: change,
    });
    if (response.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);
    if (response.status !== 200) throw refusal(response);
    return this.withVisitCount(response.body, user, requestId);
  }

  /** Undoes a delete within its window; someone else's link answers like an unknown one. */
  async restore(urlID: string, user: SessionUser, requestId?: string): Promise<ShortLink> {
    if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
    const response = await callBackend(this.links, internalApi.restoreLink, {
      params: { code: urlID },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);
    return this.withVisitCount(response.body, user, requestId);
  }

  private async withVisitCount(
    link: InternalLink,
    user: SessionUser,
    requestId?: string,
  ): Promise<ShortLink> {
    const counts = await callBackend(this.analytics, internalApi.visitCounts, {
      identity: { userId: user.id },
      requestId,
      body: { codes: [link.urlID] },
    });
    return publicLink(link, visitCountOf(counts.body.counts, link.urlID));
  }
}
