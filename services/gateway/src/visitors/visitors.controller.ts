import { Controller, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  NEXT_CURSOR_HEADER,
  publicApi,
  type SessionUser,
  type VisitorsResponse,
} from '@shortener/contracts';
import { Input, type RouteInput } from '@shortener/chassis-nest';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser } from '../session/session.guards';
import { VisitorsService } from './visitors.service';

@Controller()
export class VisitorsController {
  constructor(@Inject(VisitorsService) private readonly visitors: VisitorsService) {}

  /** One page of visits, newest first; the next page's cursor in X-Next-Cursor. */
  @ApiRoute(publicApi.getVisitors)
  async list(
    @Input() { params, query }: RouteInput<typeof publicApi.getVisitors>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VisitorsResponse> {
    const page = await this.visitors.page(params.urlID, query, user, requestId);
    if (page.nextCursor) res.setHeader(NEXT_CURSOR_HEADER, page.nextCursor);
    return page.visits;
  }
}
