import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import type { SessionUser, UserData } from '@shortener/contracts';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser, SignedInGuard } from '../session/session.guards';
import { UserService } from './user.service';

@Controller('api')
export class UserController {
  constructor(@Inject(UserService) private readonly users: UserService) {}

  @Get('user')
  @UseGuards(SignedInGuard)
  user(
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<UserData> {
    return this.users.userData(user, requestId);
  }
}
