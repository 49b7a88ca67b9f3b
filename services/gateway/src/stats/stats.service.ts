import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import {
  internalApi,
  type InternalError,
  type LinkStats,
  type SessionUser,
  type StatsFilters,
  type StatsQuery,
} from '@shortener/contracts';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { InternalClient } from '@shortener/chassis';
import { ANALYTICS_CLIENT, LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal, streamBackend } from '../backends/backend-call';
import { ownedLink } from '../backends/owned-link';

interface Caller {
  user: SessionUser;
  requestId?: string;
}

/** A link's statistics, CSV export and ownership, for its owner only. */
@Injectable()
export class StatsService {
  constructor(
    @Inject(LINKS_CLIENT) private readonly links: InternalClient,
    @Inject(ANALYTICS_CLIENT) private readonly analytics: InternalClient,
  ) {}

  /** The caller's link, or 404 'Url not found' exactly as for a link that does not exist. */
  async ownLink(urlID: string, { user, requestId }: Caller): Promise<{ createdAt: number }> {
    const link = await ownedLink(this.links, urlID, { userId: user.id }, requestId);
    return { createdAt: Date.parse(link.createdAt) };
  }

  /** The stats of the visits the filters match (all of them without a filter). */
  async stats(urlID: string, query: StatsQuery, caller: Caller): Promise<LinkStats> {
    const { createdAt } = await this.ownLink(urlID, caller);
    const response = await callBackend(this.analytics, internalApi.linkStats, {
      params: { code: urlID },
      query: { ...query, ...(Number.isFinite(createdAt) ? { createdAt } : {}) },
      identity: { userId: caller.user.id },
      requestId: caller.requestId,
    });
    if (response.status === 400) throw refusal(response);
    return response.body;
  }

  /** Every visit the filters match as CSV, as analytics streams it: passed on, never held. */
  async csv(urlID: string, filters: StatsFilters, caller: Caller): Promise<Readable> {
    await this.ownLink(urlID, caller);
    const answer = await streamBackend(this.analytics, internalApi.visitsCsv, {
      params: { code: urlID },
      query: filters,
      identity: { userId: caller.user.id },
      requestId: caller.requestId,
    });
    if (answer.status !== 200) throw refusal(answer as { status: number; body: InternalError });
    return Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>);
  }
}
