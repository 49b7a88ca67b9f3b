import { Controller, HttpStatus, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { publicApi, type Domain, type SessionUser } from '@shortener/contracts';
import { Input, type RouteInput } from '@shortener/chassis-nest';
import { ApiRoute } from '../edge/api-route.decorator';
import { RequestId } from '../edge/request-id.decorator';
import { CurrentUser } from '../session/session.guards';
import { DomainsService } from './domains.service';

/** The signed-in user's branded domains: with a session only (their entries name no scope). */
@Controller()
export class DomainsController {
  constructor(@Inject(DomainsService) private readonly domains: DomainsService) {}

  @ApiRoute(publicApi.listDomains)
  list(
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<Domain[]> {
    return this.domains.list(user, requestId);
  }

  /** 201 when this call added it, 200 for one already the caller's. */
  @ApiRoute(publicApi.addDomain)
  async add(
    @Input() { body }: RouteInput<typeof publicApi.addDomain>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Domain> {
    const { created, domain } = await this.domains.add(user, body, requestId);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return domain;
  }

  @ApiRoute(publicApi.verifyDomain)
  verify(
    @Input() { params }: RouteInput<typeof publicApi.verifyDomain>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<Domain> {
    return this.domains.verify(user, params.host, requestId);
  }

  @ApiRoute(publicApi.deleteDomain)
  remove(
    @Input() { params }: RouteInput<typeof publicApi.deleteDomain>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<void> {
    return this.domains.remove(user, params.host, requestId);
  }

  @ApiRoute(publicApi.restoreDomain)
  restore(
    @Input() { params }: RouteInput<typeof publicApi.restoreDomain>,
    @CurrentUser() user: SessionUser,
    @RequestId() requestId: string | undefined,
  ): Promise<Domain> {
    return this.domains.restore(user, params.host, requestId);
  }
}
