import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import {
  internalApi,
  LINKS_PAGE_SIZE,
  LINKS_QUERY_MESSAGES,
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
import { publicLink } from '../backends/public-link';
import { byVisits, decodeVisitsCursor, encodeVisitsCursor } from './visits-cursor';

/** The most codes one visit-counts call takes. */
const COUNTS_PER_CALL = 1000;

/** A page of the user's links with their visit counts, and where the next one starts. */
interface LinksPage {
  urls: ShortLink[];
  nextCursor: string | null;
  /** How many links the listing holds in all; null when the links service did not say. */
  total: number | null;
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
      total: page.total,
    };
  }

  async linksPage(user: SessionUser, query: LinksQuery, requestId?: string): Promise<LinksPage> {
    if (query.sort === 'visits') return this.mostVisitedPage(user, query, requestId);
    const identity = { userId: user.id };
    const listed = await callBackend(this.links, internalApi.listLinks, {
      identity,
      requestId,
      query,
    });
    if (listed.status === 400) throw refusal(listed);
    const { links, nextCursor, total = null } = listed.body;
    const counts = await this.visitCounts(links, user.id, requestId);
    return {
      urls: links.map((link) => publicLink(link, visitCountOf(counts, link.urlID))),
      nextCursor,
      total,
    };
  }

  /**
   * The most visited first: the visits are analytics' and the links the links service's, so
   * every live code of the user is counted (a call per thousand), ordered here, and the page's
   * links fetched by code. Keyset paging on (visits, code): a link whose count does not change
   * meanwhile is neither repeated nor skipped.
   */
  private async mostVisitedPage(
    user: SessionUser,
    query: LinksQuery,
    requestId?: string,
  ): Promise<LinksPage> {
    let after = null;
    if (query.cursor !== undefined) {
      after = decodeVisitsCursor(query.cursor);
      if (!after) throw new BadRequestException({ message: LINKS_QUERY_MESSAGES.cursor });
    }
    const identity = { userId: user.id };
    const listed = await callBackend(this.links, internalApi.listLinkCodes, {
      identity,
      requestId,
      query: query.q === undefined ? {} : { q: query.q },
    });
    const { codes } = listed.body;
    const counts = await this.countsOf(codes, user.id, requestId);
    const ranked = codes
      .map((code) => ({ code, visits: visitCountOf(counts, code) }))
      .sort(byVisits)
      .filter((entry) => after === null || byVisits(after, entry) < 0);
    const page = ranked.slice(0, LINKS_PAGE_SIZE);
    const found = await callBackend(this.links, internalApi.findLinks, {
      identity,
      requestId,
      body: { codes: page.map((entry) => entry.code) },
    });
    const byCode = new Map(found.body.links.map((link) => [link.urlID, link]));
    const last = page[page.length - 1];
    return {
      // A link deleted between the two calls is left out.
      urls: page.flatMap(({ code, visits }) => {
        const link = byCode.get(code);
        return link ? [publicLink(link, visits)] : [];
      }),
      nextCursor: ranked.length > LINKS_PAGE_SIZE && last ? encodeVisitsCursor(last) : null,
      total: codes.length,
    };
  }

  private visitCounts(
    links: InternalLink[],
    userId: string,
    requestId?: string,
  ): Promise<VisitCounts['counts']> {
    return this.countsOf(
      links.map((link) => link.urlID),
      userId,
      requestId,
    );
  }

  /** Visits by code, in calls of at most a thousand codes. */
  private async countsOf(
    codes: string[],
    userId: string,
    requestId?: string,
  ): Promise<VisitCounts['counts']> {
    const counts = new Map<string, number>();
    for (let start = 0; start < codes.length; start += COUNTS_PER_CALL) {
      const response = await callBackend(this.analytics, internalApi.visitCounts, {
        identity: { userId },
        requestId,
        body: { codes: codes.slice(start, start + COUNTS_PER_CALL) },
      });
      for (const code of codes.slice(start, start + COUNTS_PER_CALL)) {
        counts.set(code, visitCountOf(response.body.counts, code));
      }
    }
    // Own properties only, whatever a code is called (visitCountOf reads them so).
    return Object.fromEntries(counts);
  }
}
