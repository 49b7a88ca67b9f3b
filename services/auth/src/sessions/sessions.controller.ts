import {
  Body,
  Controller,
  HttpCode,
  Inject,
  NotFoundException,
  Post,
  UseGuards,
} from '@nestjs/common';
import { sessionLookupSchema, type CurrentSession } from '@shortener/contracts';
import { InternalAuthGuard } from '@shortener/chassis-nest';
import { SessionsService } from './sessions.service';

/** The internal API the gateway resolves session cookies with. */
@Controller('internal/sessions')
@UseGuards(InternalAuthGuard)
export class SessionsController {
  constructor(@Inject(SessionsService) private readonly sessions: SessionsService) {}

  /** A forged, unknown or expired id all answer 404: the caller treats it as signed out. */
  @Post('lookup')
  @HttpCode(200)
  async lookup(@Body() body: unknown): Promise<CurrentSession> {
    const request = sessionLookupSchema.safeParse(body);
    const session = request.success ? await this.sessions.current(request.data.sessionId) : null;
    if (!session) throw new NotFoundException('No such session, or it has expired');
    return session;
  }
}
