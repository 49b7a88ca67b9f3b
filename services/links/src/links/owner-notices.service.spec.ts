import { ALIAS_MAX_LENGTH, DOMAIN_HOST_MAX, linkOwnersSchema } from '@shortener/contracts';
import { DEFAULT_BODY_LIMIT } from '@shortener/chassis-nest';
import { OWNER_NOTICES_BATCH } from './owner-notices.service';

describe('OwnerNoticesService', () => {
  it('sends batches analytics takes: a full one of the longest codes, owners and domains fits its body limit', () => {
    const owners = Array.from({ length: OWNER_NOTICES_BATCH }, () => ({
      urlID: 'a'.repeat(ALIAS_MAX_LENGTH),
      ownerId: 'o'.repeat(64),
      domain: `${'d'.repeat(60)}.`.repeat(4) + 'd'.repeat(DOMAIN_HOST_MAX - 244),
    }));
    expect(owners[0]!.domain).toHaveLength(DOMAIN_HOST_MAX);
    const body = { owners };
    expect(linkOwnersSchema.safeParse(body).success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(DEFAULT_BODY_LIMIT);
  });
});
