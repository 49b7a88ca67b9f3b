import { Module } from '@nestjs/common';
import { DomainRemovalsService } from './domain-removals.service';
import { DomainsController } from './domains.controller';
import { DomainsService } from './domains.service';
import { TxtLookup } from './txt-lookup';
import { VerifyDomainService } from './verify-domain.service';

/** Branded domains: added, verified by a TXT record, removed with an undo window. */
@Module({
  controllers: [DomainsController],
  providers: [DomainsService, VerifyDomainService, DomainRemovalsService, TxtLookup],
})
export class DomainsModule {}
