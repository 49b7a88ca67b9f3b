import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  isShortCode,
  MESSAGES,
  VISITS_PAGE_DEFAULT,
  visitorsResponseSchema,
  visitsPageSchema,
  type SessionUser,
  type VisitorsResponse,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { ANALYTICS_CLIENT, LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, parseAnswer, refusal } from '../backends/backend-call';

export interface VisitorsPage {
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

  async page(
    urlID: string,
    cursor: string | undefined,
    user: SessionUser,
    requestId?: string,
  ): Promise<VisitorsPage> {
    if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
    const identity = { userId: user.id };
    // Ownership first: someone else's link answers exactly like an unknown one.
    const owned = await callBackend(
      this.links,
      'GET',
      `/internal/links/${urlID}`,
      { identity, requestId },
      [200, 404],
    );
    if (owned.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);

    const query = new URLSearchParams({ limit: String(VISITS_PAGE_DEFAULT) });
    if (cursor !== undefined) query.set('cursor', cursor);
    const response = await callBackend(
      this.analytics,
      'GET',
      `/internal/visits/${urlID}?${query.toString()}`,
      { identity, requestId },
      [200, 400],
    );
    if (response.status === 400) throw refusal(response, 'The cursor is not valid.');
    const page = parseAnswer(visitsPageSchema, response, 'visits page');
    // The spec's catalogue: a first page without visits is a 404 the page reads as 'No visitors'.
    if (page.visits.length === 0 && cursor === undefined) {
      throw new NotFoundException(MESSAGES.noVisitors);
    }
    return { visits: visitorsResponseSchema.parse(page.visits), nextCursor: page.nextCursor };
  }
}
