import { UnauthorizedException } from '@nestjs/common';
import { MESSAGES } from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';

/** The signed-in caller a call about one's own links or domains is made for. */
export function ownerOf(caller: CallerIdentity): string {
  if (caller.userId === null) throw new UnauthorizedException(MESSAGES.unauthorized);
  return caller.userId;
}
