import { BadRequestException, Controller, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  ACCOUNT_STATS_MESSAGES,
  ACCOUNT_VISITS_CSV_COLUMNS,
  DEFAULT_STATS_RANGE,
  internalApi,
  isPeriod,
  type AccountStats,
} from '@shortener/contracts';
import { Caller, Input, Route, type RouteInput } from '@shortener/chassis-nest';
import type { CallerIdentity } from '@shortener/chassis';
import { csvLine, streamCsv, visitCells } from '../stats/visits-csv';
import { LinkOwnersRepository } from '../visits/link-owners.repository';
import { AccountStatsRepository } from './account-stats.repository';
import type { AccountStatsRequest } from './account-window';

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
    const owner = this.ownerOf(caller, query);
    return this.stats.stats(owner, { ...query, range: query.range ?? DEFAULT_STATS_RANGE });
  }

  /** The caller's account, for a period that is one; 400 otherwise. */
  private ownerOf(caller: CallerIdentity, query: { from?: number; to?: number }): string {
    if (caller.userId === null) throw new BadRequestException('A user is required');
    if (!isPeriod(query.from, query.to)) {
      throw new BadRequestException(ACCOUNT_STATS_MESSAGES.period);
    }
    return caller.userId;
  }

  /** Every visit of the caller's links in the range (the filters match) as CSV, oldest first. */
  @Route(internalApi.accountVisitsCsv)
  async csv(
    @Caller() caller: CallerIdentity,
    @Input() { query }: RouteInput<typeof internalApi.accountVisitsCsv>,
    @Res() res: Response,
  ): Promise<void> {
    const owner = this.ownerOf(caller, query);
    const request: AccountStatsRequest = { ...query, range: query.range ?? DEFAULT_STATS_RANGE };
    await streamCsv(res, ACCOUNT_VISITS_CSV_COLUMNS, (send) =>
      this.stats.export(owner, request, (rows) =>
        send(rows.map((row) => csvLine([row.url_id, ...visitCells(row)])).join('')),
      ),
    );
  }

  @Route(internalApi.registerLinkOwners)
  async register(
    @Input() { body }: RouteInput<typeof internalApi.registerLinkOwners>,
  ): Promise<void> {
    await this.owners.register(body.owners);
  }
}
