import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  internalApi,
  isShortCode,
  MESSAGES,
  shortenResponseSchema,
  type DeleteResponse,
  type SessionUser,
  type ShortenQuery,
  type ShortenResponse,
} from '@shortener/contracts';
import type { InternalClient } from '@shortener/chassis';
import { LINKS_CLIENT } from '../backends/backends.module';
import { callBackend, refusal } from '../backends/backend-call';

/** Shorten and delete, as the links service does them for the caller. */
@Injectable()
export class LinksService {
  constructor(@Inject(LINKS_CLIENT) private readonly links: InternalClient) {}

  /** The links service checks the URL and the expiry rules; its refusals pass through. */
  async shorten(
    query: ShortenQuery,
    user: SessionUser | null,
    requestId?: string,
  ): Promise<ShortenResponse> {
    const response = await callBackend(this.links, internalApi.createLink, {
      identity: { userId: user?.id ?? null },
      requestId,
      body: { url: query.url, days: query.days ?? null },
    });
    if (response.status !== 201) throw refusal(response);
    return shortenResponseSchema.parse({ url: response.body.urlID, loggedIn: user !== null });
  }

  /** Someone else's link answers exactly like an unknown one. */
  async remove(urlID: string, user: SessionUser, requestId?: string): Promise<DeleteResponse> {
    if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
    const response = await callBackend(this.links, internalApi.deleteLink, {
      params: { code: urlID },
      identity: { userId: user.id },
      requestId,
    });
    if (response.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);
    return { loggedIn: true };
  }
}
