import { Controller, Inject } from '@nestjs/common';
import { internalApi, type Domain } from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { Caller, Input, Route, type RouteInput } from '@shortener/chassis-nest';
import { ownerOf } from '../owner-of';
import { DomainRemovalsService } from './domain-removals.service';
import { DomainsService } from './domains.service';
import { VerifyDomainService } from './verify-domain.service';

/** The caller's branded domains, for the gateway. */
@Controller()
export class DomainsController {
  constructor(
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(VerifyDomainService) private readonly verification: VerifyDomainService,
    @Inject(DomainRemovalsService) private readonly removals: DomainRemovalsService,
  ) {}

  @Route(internalApi.listDomains)
  async list(@Caller() caller: CallerIdentity): Promise<{ domains: Domain[] }> {
    return { domains: await this.domains.list(ownerOf(caller)) };
  }

  @Route(internalApi.addDomain)
  add(
    @Caller() caller: CallerIdentity,
    @Input() { body }: RouteInput<typeof internalApi.addDomain>,
  ): Promise<{ created: boolean; domain: Domain }> {
    return this.domains.add(ownerOf(caller), body.host);
  }

  @Route(internalApi.verifyDomain)
  verify(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.verifyDomain>,
  ): Promise<Domain> {
    return this.verification.verify(ownerOf(caller), params.host);
  }

  @Route(internalApi.deleteDomain)
  remove(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.deleteDomain>,
  ): Promise<void> {
    return this.removals.delete(ownerOf(caller), params.host);
  }

  @Route(internalApi.restoreDomain)
  restore(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.restoreDomain>,
  ): Promise<Domain> {
    return this.removals.restore(ownerOf(caller), params.host);
  }
}
