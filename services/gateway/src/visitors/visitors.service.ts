import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  internalApi,
  MESSAGES,
  VISITS_PAGE_DEFAULT,
  visitorsResponseSchema,
  type SessionUser,
  type VisitorsQuery,
  type VisitorsResponse,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { ANALYTICS_CLIENT, LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';
import { ownedLink } from '../backends/owned-link';

interface VisitorsPage {
  visits: VisitorsResponse;
  nextCursor: string | null;
}

/** A page of a link's visits, for its owner only. */
@Injectable()
export class VisitorsService {
  constructor(
    @Inject(LINKS_CLIENT) private readonly links: InternalClient,
    @Inject(ANALYTICS_CLIENT) private readonly analytics: InternalClient,
  ) {}

  /** A page of the visits the filters match (all of them without a filter). */
  async page(
    urlID: string,
    query: VisitorsQuery,
    user: SessionUser,
    requestId?: string,
  ): Promise<VisitorsPage> {
    const identity = { userId: user.id };
    // Ownership first: someone else's link answers exactly like an unknown one.
    await ownedLink(this.links, urlID, identity, requestId);

    const response = await callBackend(this.analytics, internalApi.visitsPage, {
      params: { code: urlID },
      query: { limit: VISITS_PAGE_DEFAULT, ...query },
      identity,
      requestId,
    });
    if (response.status === 400) throw refusal(response);
    const page = response.body;
    // The spec's catalogue: a first page without visits is a 404 the page reads as 'No visitors'.
    if (page.visits.length === 0 && query.cursor === undefined) {
      throw new NotFoundException(MESSAGES.noVisitors);
    }
    return { visits: visitorsResponseSchema.parse(page.visits), nextCursor: page.nextCursor };
  }
}
