import { pipeline } from 'node:stream/promises';
import { Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  accountVisitsKey,
  publicApi,
  type LinkStats,
  type SessionUser,
} from '@shortener/contracts';
import { Input, SERVICE_CONFIG, type RouteInput } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { presentedSession } from '../session/session-cookie';
import { SessionResolver } from '../session/session-resolver';
import { CurrentUser } from '../session/session.guards';
import { LiveStreams } from './live-streams';
import { StatsService } from './stats.service';

@Controller()
export class StatsController {
  constructor(
    @Inject(StatsService) private readonly stats: StatsService,
    @Inject(LiveStreams) private readonly streams: LiveStreams,
    @Inject(SessionResolver) private readonly sessions: SessionResolver,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @ApiRoute(publicApi.getStats)
  async get(
    @Input() { params, query }: RouteInput<typeof publicApi.getStats>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<LinkStats> {
    return this.stats.stats(params.urlID, query, { user, requestId });
  }

  /**
   * Server-Sent Events of the link's visits as they are stored (same-origin: EdgeModule);
   * 429 past the streams one user or this instance may hold (LiveStreams).
   */
  @ApiRoute(publicApi.getLiveVisits)
  async live(
    @Input() { params: { urlID } }: RouteInput<typeof publicApi.getLiveVisits>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.openStream(req, res, user, urlID, () =>
      this.stats.ownLink(urlID, { user, requestId }),
    );
  }

  /**
   * Server-Sent Events of every visit of the caller's links as it is stored (the analytics
   * page counts again on each), under the account's key; limited as a link's streams are.
   */
  @ApiRoute(publicApi.getAnalyticsLive)
  async accountLive(
    @CurrentUser() user: SessionUser,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.openStream(req, res, user, accountVisitsKey(user.id), () => Promise.resolve());
  }

  /** A live stream of `key`'s notices, open while the session it was opened with lasts. */
  private async openStream(
    req: Request,
    res: Response,
    user: SessionUser,
    key: string,
    allowed: () => Promise<unknown>,
  ): Promise<void> {
    const session = presentedSession(req, this.config);
    await this.streams.open(res, {
      userId: user.id,
      urlID: key,
      allowed,
      sessionAlive: async () => (await this.sessions.resolve(session))?.id === user.id,
    });
  }

  @ApiRoute(publicApi.getVisitsCsv)
  async csv(
    @Input() { params: { urlID }, query }: RouteInput<typeof publicApi.getVisitsCsv>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const body = await this.stats.csv(urlID, query, { user, requestId });
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="${urlID}-visits.csv"`);
    // A failure half-way cuts the connection, so the download fails instead of looking whole.
    await pipeline(body, res).catch(() => res.destroy());
  }
}
