import { Controller, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  NEXT_CURSOR_HEADER,
  publicApi,
  TOTAL_COUNT_HEADER,
  type SessionUser,
  type ShortLink,
  type UserData,
} from '@shortener/contracts';
import { Input, type RouteInput } from '@shortener/chassis-nest';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser } from '../session/session.guards';
import { UserService } from './user.service';

@Controller()
export class UserController {
  constructor(@Inject(UserService) private readonly users: UserService) {}

  /**
   * SPEC's user data with the newest links; the next page's cursor in X-Next-Cursor, how many
   * links there are in X-Total-Count.
   */
  @ApiRoute(publicApi.getUser)
  async user(
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UserData> {
    const { nextCursor, total, ...data } = await this.users.userData(user, requestId);
    if (nextCursor) res.setHeader(NEXT_CURSOR_HEADER, nextCursor);
    if (total !== null) res.setHeader(TOTAL_COUNT_HEADER, String(total));
    return data;
  }

  /**
   * A page of the user's links in the order asked for; the next page's cursor in
   * X-Next-Cursor, how many links the listing holds in X-Total-Count.
   */
  @ApiRoute(publicApi.listLinks)
  async links(
    @Input() { query }: RouteInput<typeof publicApi.listLinks>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ShortLink[]> {
    const page = await this.users.linksPage(user, query, requestId);
    if (page.nextCursor) res.setHeader(NEXT_CURSOR_HEADER, page.nextCursor);
    if (page.total !== null) res.setHeader(TOTAL_COUNT_HEADER, String(page.total));
    return page.urls;
  }
}
