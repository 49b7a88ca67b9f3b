import { Inject, Injectable } from '@nestjs/common';
import {
  internalApi,
  shortLinkSchema,
  visitCountOf,
  userDataSchema,
  type InternalLink,
  type LinksQuery,
  type SessionUser,
  type ShortLink,
  type UserData,
  type VisitCounts,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { ANALYTICS_CLIENT, LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';

/** A page of the user's links with their visit counts, and where the next one starts. */
export interface LinksPage {
  urls: ShortLink[];
  nextCursor: string | null;
}

/**
 * GET /api/user and GET /api/links: who is signed in (from the session), a page of their
 * live links (one links call) and each link's visit count (one analytics call: a page holds
 * fewer links than a visit-counts call takes).
 */
@Injectable()
export class UserService {
  constructor(
    @Inject(LINKS_CLIENT) private readonly links: InternalClient,
    @Inject(ANALYTICS_CLIENT) private readonly analytics: InternalClient,
  ) {}

  /** The first page of links: the same as /api/links' without a search. */
  async userData(user: SessionUser, requestId?: string): Promise<UserData & LinksPage> {
    const page = await this.linksPage(user, {}, requestId);
    return {
      ...userDataSchema.parse({
        fullName: user.fullName,
        profilePicture: user.profilePicture,
        urls: page.urls,
      }),
      nextCursor: page.nextCursor,
    };
  }

  async linksPage(user: SessionUser, query: LinksQuery, requestId?: string): Promise<LinksPage> {
    const identity = { userId: user.id };
    const listed = await callBackend(this.links, internalApi.listLinks, {
      identity,
      requestId,
      query,
    });
    if (listed.status === 400) throw refusal(listed);
    const { links, nextCursor } = listed.body;
    const counts = await this.visitCounts(links, user.id, requestId);
    return {
      urls: links.map((link) =>
        shortLinkSchema.parse({ ...link, visitCount: visitCountOf(counts, link.urlID) }),
      ),
      nextCursor,
    };
  }

  private async visitCounts(
    links: InternalLink[],
    userId: string,
    requestId?: string,
  ): Promise<VisitCounts['counts']> {
    if (links.length === 0) return {};
    const response = await callBackend(this.analytics, internalApi.visitCounts, {
      identity: { userId },
      requestId,
      body: { codes: links.map((link) => link.urlID) },
    });
    return response.body.counts;
  }
}
