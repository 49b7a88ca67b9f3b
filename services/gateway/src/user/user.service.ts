import { Inject, Injectable } from '@nestjs/common';
import {
  internalApi,
  userDataSchema,
  type InternalLink,
  type SessionUser,
  type UserData,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { ANALYTICS_CLIENT, LINKS_CLIENT } from '../backends/backends.module';
import { callBackend } from '../backends/backend-call';

/** The most codes one visit-counts call takes (codesRequestSchema). */
const COUNTS_BATCH = 1000;

/**
 * GET /api/user: who is signed in (from the session), their live links (one links call)
 * and each link's visit count (one analytics call per thousand links).
 */
@Injectable()
export class UserService {
  constructor(
    @Inject(LINKS_CLIENT) private readonly links: InternalClient,
    @Inject(ANALYTICS_CLIENT) private readonly analytics: InternalClient,
  ) {}

  async userData(user: SessionUser, requestId?: string): Promise<UserData> {
    const identity = { userId: user.id };
    const listed = await callBackend(this.links, internalApi.listLinks, { identity, requestId });
    const { links } = listed.body;
    const counts = await this.visitCounts(links, user.id, requestId);
    return userDataSchema.parse({
      fullName: user.fullName,
      profilePicture: user.profilePicture,
      urls: links.map((link) => ({ ...link, visitCount: counts[link.urlID] ?? 0 })),
    });
  }

  private async visitCounts(
    links: InternalLink[],
    userId: string,
    requestId?: string,
  ): Promise<Record<string, number>> {
    const batches: string[][] = [];
    for (let start = 0; start < links.length; start += COUNTS_BATCH) {
      batches.push(links.slice(start, start + COUNTS_BATCH).map((link) => link.urlID));
    }
    const answers = await Promise.all(
      batches.map(async (codes) => {
        const response = await callBackend(this.analytics, internalApi.visitCounts, {
          identity: { userId },
          requestId,
          body: { codes },
        });
        return response.body.counts;
      }),
    );
    return Object.assign({}, ...answers) as Record<string, number>;
  }
}
