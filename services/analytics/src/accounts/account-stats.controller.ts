import { BadRequestException, Controller, Inject } from '@nestjs/common';
import {
  ACCOUNT_STATS_MESSAGES,
  DEFAULT_STATS_RANGE,
  internalApi,
  isPeriod,
  type AccountStats,
} from '@shortener/contracts';
import { Caller, Input, Route, type RouteInput } from '@shortener/chassis-nest';
import type { CallerIdentity } from '@shortener/chassis';
import { LinkOwnersRepository } from '../visits/link-owners.repository';
import { AccountStatsRepository } from './account-stats.repository';

/** The account's statistics the gateway serves, and the owners the links service tells. */
@Controller()
export class AccountStatsController {
  constructor(
    @Inject(AccountStatsRepository) private readonly stats: AccountStatsRepository,
    @Inject(LinkOwnersRepository) private readonly owners: LinkOwnersRepository,
  ) {}

  /** The caller's account; a call without a user is refused (the gateway sends none such). */
  @Route(internalApi.accountStats)
  async get(
    @Caller() caller: CallerIdentity,
    @Input() { query }: RouteInput<typeof internalApi.accountStats>,
  ): Promise<AccountStats> {
    if (caller.userId === null) throw new BadRequestException('A user is required');
    if (!isPeriod(query.from, query.to)) {
      throw new BadRequestException(ACCOUNT_STATS_MESSAGES.period);
    }
    return this.stats.stats(caller.userId, { ...query, range: query.range ?? DEFAULT_STATS_RANGE });
  }

  @Route(internalApi.registerLinkOwners)
  async register(
    @Input() { body }: RouteInput<typeof internalApi.registerLinkOwners>,
  ): Promise<void> {
    await this.owners.register(body.owners);
  }
}
