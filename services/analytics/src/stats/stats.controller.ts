import { BadRequestException, Controller, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  DEFAULT_STATS_RANGE,
  internalApi,
  isShortCode,
  VISITS_CSV_COLUMNS,
  type LinkStats,
} from '@shortener/contracts';
import { Input, Route, type RouteInput } from '@shortener/chassis-nest';
import { StatsRepository } from './stats.repository';
import { csvLine, streamCsv, visitCells } from './visits-csv';

/** Rows read per query while a CSV export streams. */
const EXPORT_PAGE = 5000;

function codeOf(code: string): string {
  if (!isShortCode(code)) throw new BadRequestException('Invalid short code');
  return code;
}

/** The stats and the CSV export the gateway serves, for a link it has checked is the user's. */
@Controller()
export class StatsController {
  constructor(@Inject(StatsRepository) private readonly stats: StatsRepository) {}

  @Route(internalApi.linkStats)
  async get(
    @Input() { params, query }: RouteInput<typeof internalApi.linkStats>,
  ): Promise<LinkStats> {
    const range = query.range ?? DEFAULT_STATS_RANGE;
    return this.stats.stats(codeOf(params.code), range, query.createdAt ?? null, Date.now(), query);
  }

  /**
   * Every visit of a link (those the filters match) as CSV, oldest first, streamed a page at
   * a time: never all of them in memory, and it stops reading when the caller goes away.
   */
  @Route(internalApi.visitsCsv)
  async csv(
    @Input() { params, query }: RouteInput<typeof internalApi.visitsCsv>,
    @Res() res: Response,
  ): Promise<void> {
    const code = codeOf(params.code);
    const filter = await this.stats.filter(code, query);
    await streamCsv(res, VISITS_CSV_COLUMNS, async (send) => {
      let after: { createdAt: Date; id: string } | null = null;
      for (;;) {
        const rows = await this.stats.exportPage(code, after, EXPORT_PAGE, filter);
        if (!(await send(rows.map((row) => csvLine(visitCells(row))).join('')))) return;
        const last = rows[rows.length - 1];
        if (!last || rows.length < EXPORT_PAGE) return;
        after = { createdAt: last.created_at, id: last.id };
      }
    });
  }
}
