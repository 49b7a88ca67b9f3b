import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  DOMAIN_MESSAGES,
  internalApi,
  type AddDomainRequest,
  type Domain,
  type SessionUser,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';

/** The signed-in user's domains, as the links service keeps them; its refusals pass through. */
@Injectable()
export class DomainsService {
  constructor(@Inject(LINKS_CLIENT) private readonly links: InternalClient) {}

  async list(user: SessionUser, requestId?: string): Promise<Domain[]> {
    const response = await callBackend(this.links, internalApi.listDomains, {
      identity: { userId: user.id },
      requestId,
    });
    return response.body.domains;
  }

  async add(
    user: SessionUser,
    request: AddDomainRequest,
    requestId?: string,
  ): Promise<{ created: boolean; domain: Domain }> {
    const response = await callBackend(this.links, internalApi.addDomain, {
      identity: { userId: user.id },
      requestId,
      body: request,
    });
    if (response.status !== 200) throw refusal(response);
    return response.body;
  }

  async verify(user: SessionUser, host: string, requestId?: string): Promise<Domain> {
    const response = await callBackend(this.links, internalApi.verifyDomain, {
      params: { host },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status !== 200) throw refusal(response);
    return response.body;
  }

  async remove(user: SessionUser, host: string, requestId?: string): Promise<void> {
    const response = await callBackend(this.links, internalApi.deleteDomain, {
      params: { host },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 404) throw new NotFoundException(DOMAIN_MESSAGES.notFound);
  }

  async restore(user: SessionUser, host: string, requestId?: string): Promise<Domain> {
    const response = await callBackend(this.links, internalApi.restoreDomain, {
      params: { host },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 404) throw new NotFoundException(DOMAIN_MESSAGES.notFound);
    return response.body;
  }
}
