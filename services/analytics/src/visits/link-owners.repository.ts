import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ManagedDataSource } from '@shortener/chassis-postgres';
import { isShortCode, type LinkOwners } from '@shortener/contracts';
import { boundIdleTransaction, connected } from './analytics-database';
import { ADD_OWNED_LINKS, DROP_EMPTY, RECOUNT_VISITORS, SUBTRACT_LINKS } from './account-rollups';
import { lockLinks } from './link-locks';

/**
 * Takes deleted links' visits off their owners' account rollups, in the transaction that
 * deletes the links' own rollups (before it does), under their exclusive locks.
 */
export async function takeOffAccounts(
  manager: EntityManager,
  links: readonly string[],
): Promise<void> {
  const owners: { owner_id: string }[] = await manager.query(
    'SELECT DISTINCT owner_id FROM analytics.link_owners WHERE url_id = ANY($1::varchar[])',
    [links],
  );
  if (owners.length === 0) return;
  const days: { owner_id: string; day: string }[] = await manager.query(SUBTRACT_LINKS, [links]);
  const ownerIds = owners.map((row) => row.owner_id);
  for (const statement of DROP_EMPTY) await manager.query(statement, [ownerIds]);
  if (days.length > 0) {
    const [clear, fill] = RECOUNT_VISITORS;
    const pairs = [days.map((row) => row.owner_id), days.map((row) => row.day)];
    await manager.query(clear, pairs);
    await manager.query(fill, [...pairs, links]);
  }
  await manager.query('DELETE FROM analytics.link_owners WHERE url_id = ANY($1::varchar[])', [
    links,
  ]);
}

/** Who owns which link, as the links service tells it. */
@Injectable()
export class LinkOwnersRepository {
  constructor(@Inject(ManagedDataSource) private readonly database: ManagedDataSource) {}

  /**
   * Records the owners not known yet and counts what their links hold so far in their
   * accounts, and each link's domain as told; links already deleted are left out (their
   * rollups are gone). Safe to repeat: answers how many were new.
   */
  async register(owners: LinkOwners['owners']): Promise<number> {
    const known = owners.filter((owner) => isShortCode(owner.urlID));
    if (known.length === 0) return 0;
    return connected(this.database).transaction(async (manager) => {
      await boundIdleTransaction(manager);
      const codes = known.map((owner) => owner.urlID);
      await lockLinks(manager, codes, 'exclusive');
      const deleted: { url_id: string }[] = await manager.query(
        'SELECT url_id FROM analytics.deleted_links WHERE url_id = ANY($1::varchar[])',
        [codes],
      );
      const gone = new Set(deleted.map((row) => row.url_id));
      // One row per code (the first owner told), in code order: locks in one order.
      const byCode = new Map<string, string>();
      for (const owner of known) {
        if (!gone.has(owner.urlID) && !byCode.has(owner.urlID)) {
          byCode.set(owner.urlID, owner.ownerId);
        }
      }
      const sorted = [...byCode.keys()].sort();
      if (sorted.length === 0) return 0;
      const [row]: { added: number }[] = await manager.query(ADD_OWNED_LINKS, [
        sorted,
        sorted.map((code) => byCode.get(code)),
      ]);
      // The domain as told now (a link moves to a domain and back); an older links service
      // tells none, which leaves it as it was.
      const domains = new Map<string, string | null>();
      for (const owner of known) {
        if (byCode.has(owner.urlID) && owner.domain !== undefined) {
          domains.set(owner.urlID, owner.domain);
        }
      }
      if (domains.size > 0) {
        await manager.query(
          `UPDATE analytics.link_owners o SET domain = told.domain
           FROM unnest($1::varchar[], $2::varchar[]) AS told(url_id, domain)
           WHERE o.url_id = told.url_id AND o.domain IS DISTINCT FROM told.domain`,
          [[...domains.keys()], [...domains.values()]],
        );
      }
      return row?.added ?? 0;
    });
  }
}
