import { Controller, Get, Inject, Param, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import {
  NEXT_CURSOR_HEADER,
  visitorsQuerySchema,
  type SessionUser,
  type VisitorsResponse,
} from '@shortener/contracts';
import { parseRequest } from '../edge/parse-request';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser, SignedInGuard } from '../session/session.guards';
import { VisitorsService } from './visitors.service';

@Controller('api')
export class VisitorsController {
  constructor(@Inject(VisitorsService) private readonly visitors: VisitorsService) {}

  /** One page of visits, newest first; the next page's cursor in X-Next-Cursor. */
  @Get('visitors/:urlID')
  @UseGuards(SignedInGuard)
  async list(
    @Param('urlID') urlID: string,
    @Query() query: unknown,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VisitorsResponse> {
    const { cursor } = parseRequest(visitorsQuerySchema, query);
    const page = await this.visitors.page(urlID, cursor, user, requestId);
    if (page.nextCursor) res.setHeader(NEXT_CURSOR_HEADER, page.nextCursor);
    return page.visits;
  }
}
