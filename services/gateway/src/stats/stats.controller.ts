import { pipeline } from 'node:stream/promises';
import { Controller, Get, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { statsQuerySchema, type LinkStats, type SessionUser } from '@shortener/contracts';
import { LIFECYCLE, SERVICE_CONFIG, type Lifecycle } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';
import { parseRequest } from '../edge/parse-request';
import { RequestId } from '../edge/request-id.decorator';
import { presentedSession } from '../session/session-cookie';
import { SessionResolver } from '../session/session-resolver';
import { CurrentUser, SignedInGuard } from '../session/session.guards';
import { streamVisits } from './live-stream';
import type { LiveVisitFeed } from './live-visits';
import { StatsService } from './stats.service';

export const LIVE_VISITS = Symbol('LIVE_VISITS');

@Controller('api')
export class StatsController {
  constructor(
    @Inject(StatsService) private readonly stats: StatsService,
    @Inject(LIVE_VISITS) private readonly feed: LiveVisitFeed,
    @Inject(SessionResolver) private readonly sessions: SessionResolver,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
    @Inject(LIFECYCLE) private readonly lifecycle: Lifecycle,
  ) {}

  @Get('stats/:urlID')
  @UseGuards(SignedInGuard)
  async get(
    @Param('urlID') urlID: string,
    @Query() query: unknown,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<LinkStats> {
    const { range } = parseRequest(statsQuerySchema, query);
    return this.stats.stats(urlID, range, { user, requestId });
  }

  /** Server-Sent Events of the link's visits as they are stored (same-origin: EdgeModule). */
  @Get('stats/:urlID/live')
  @UseGuards(SignedInGuard)
  async live(
    @Param('urlID') urlID: string,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.stats.ownLink(urlID, { user, requestId });
    const session = presentedSession(req, this.config);
    streamVisits(res, {
      urlID,
      feed: this.feed,
      sessionAlive: async () => (await this.sessions.resolve(session))?.id === user.id,
      heartbeatMs: this.config.LIVE_HEARTBEAT_MS,
      stopping: this.lifecycle.stopping,
    });
  }

  @Get('stats/:urlID/visits.csv')
  @UseGuards(SignedInGuard)
  async csv(
    @Param('urlID') urlID: string,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const body = await this.stats.csv(urlID, { user, requestId });
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="${urlID}-visits.csv"`);
    // A failure half-way cuts the connection, so the download fails instead of looking whole.
    await pipeline(body, res).catch(() => res.destroy());
  }
}
