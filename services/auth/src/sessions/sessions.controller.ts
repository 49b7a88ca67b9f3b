import { Controller, Inject, NotFoundException } from '@nestjs/common';
import { internalApi, type CurrentSession } from '@shortener/contracts';
import { Input, Route, type RouteInput } from '@shortener/chassis-nest';
import { SessionsService } from './sessions.service';

const noSession = (): NotFoundException =>
  new NotFoundException('No such session, or it has expired');

/** The internal API the gateway resolves session cookies with. */
@Controller()
export class SessionsController {
  constructor(@Inject(SessionsService) private readonly sessions: SessionsService) {}

  /** A forged, unknown or expired id all answer 404: the caller treats it as signed out. */
  @Route(internalApi.lookUpSession, noSession)
  async lookup(
    @Input() { body }: RouteInput<typeof internalApi.lookUpSession>,
  ): Promise<CurrentSession> {
    const session = await this.sessions.current(body.sessionId);
    if (!session) throw noSession();
    return session;
  }
}
