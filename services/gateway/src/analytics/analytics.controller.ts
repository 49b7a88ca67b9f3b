import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Controller, HttpException, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  ACCOUNT_STATS_MESSAGES,
  internalApi,
  isPeriod,
  publicApi,
  type AccountStats,
  type InternalError,
  type SessionUser,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { Input, type RouteInput } from '@shortener/chassis-nest';
import { ANALYTICS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal, streamBackend } from '../backends/backend-call';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser } from '../session/session.guards';

/** The statistics of all the caller's links: analytics answers for the caller's account. */
@Controller()
export class AnalyticsController {
  constructor(@Inject(ANALYTICS_CLIENT) private readonly analytics: InternalClient) {}

  @ApiRoute(publicApi.getAnalytics)
  async get(
    @Input() { query }: RouteInput<typeof publicApi.getAnalytics>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<AccountStats> {
    if (!isPeriod(query.from, query.to)) {
      throw new HttpException({ message: ACCOUNT_STATS_MESSAGES.period }, 400);
    }
    const response = await callBackend(this.analytics, internalApi.accountStats, {
      query,
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 400) throw refusal(response);
    return response.body;
  }

  /** The account's visits of the range as CSV, as analytics streams them: passed on, never held. */
  @ApiRoute(publicApi.getAnalyticsCsv)
  async csv(
    @Input() { query }: RouteInput<typeof publicApi.getAnalyticsCsv>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    if (!isPeriod(query.from, query.to)) {
      throw new HttpException({ message: ACCOUNT_STATS_MESSAGES.period }, 400);
    }
    const answer = await streamBackend(this.analytics, internalApi.accountVisitsCsv, {
      query,
      identity: { userId: user.id },
      requestId,
    });
    if (answer.status !== 200) throw refusal(answer as { status: number; body: InternalError });
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', 'attachment; filename="analytics-visits.csv"');
    const body = Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>);
    // A failure half-way cuts the connection, so the download fails instead of looking whole.
    await pipeline(body, res).catch(() => res.destroy());
  }
}
