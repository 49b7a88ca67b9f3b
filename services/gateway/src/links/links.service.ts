import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  internalLinkSchema,
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
import { callBackend, parseAnswer, refusal } from '../backends/backend-call';

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
    const response = await callBackend(
      this.links,
      'POST',
      '/internal/links',
      {
        identity: { userId: user?.id ?? null },
        requestId,
        body: { url: query.url, days: query.days ?? null },
      },
      [201, 400, 403],
    );
    if (response.status !== 201) throw refusal(response, MESSAGES.serverError);
    const link = parseAnswer(internalLinkSchema, response, 'created link');
    return shortenResponseSchema.parse({ url: link.urlID, loggedIn: user !== null });
  }

  /** Someone else's link answers exactly like an unknown one. */
  async remove(urlID: string, user: SessionUser, requestId?: string): Promise<DeleteResponse> {
    if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
    const response = await callBackend(
      this.links,
      'DELETE',
      `/internal/links/${urlID}`,
      { identity: { userId: user.id }, requestId },
      [204, 404],
    );
    if (response.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);
    return { loggedIn: true };
  }
}
