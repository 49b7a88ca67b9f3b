import { Controller, HttpException, Inject } from '@nestjs/common';
import {
  ACCOUNT_STATS_MESSAGES,
  internalApi,
  isPeriod,
  publicApi,
  type AccountStats,
  type SessionUser,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { Input, type RouteInput } from '@shortener/chassis-nest';
import { ANALYTICS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';
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
}
