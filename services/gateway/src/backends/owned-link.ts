import { NotFoundException } from '@nestjs/common';
import { internalApi, isShortCode, MESSAGES, type InternalLink } from '@shortener/contracts';
import type { CallerIdentity, InternalClient } from '@shortener/chassis';
import { callBackend } from './backend-call';

/**
 * The caller's link, from the links service: someone else's, an unknown or a malformed id all
 * answer 404 'Url not found', exactly alike, so an id reveals nothing about another user.
 */
export async function ownedLink(
  links: InternalClient,
  urlID: string,
  identity: CallerIdentity,
  requestId?: string,
): Promise<InternalLink> {
  if (!isShortCode(urlID)) throw new NotFoundException(MESSAGES.urlNotFound);
  const owned = await callBackend(links, internalApi.getLink, {
    params: { code: urlID },
    identity,
    requestId,
  });
  if (owned.status === 404) throw new NotFoundException(MESSAGES.urlNotFound);
  return owned.body;
}
