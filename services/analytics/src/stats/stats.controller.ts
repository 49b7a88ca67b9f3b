import { once } from 'node:events';
import {
  BadRequestException,
  Controller,
  Get,
  Inject,
  Param,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import {
  DEFAULT_STATS_RANGE,
  isShortCode,
  statsRangeSchema,
  STATS_RANGES,
  VISITS_CSV_COLUMNS,
  type LinkStats,
} from '@shortener/contracts';
import { InternalAuthGuard } from '@shortener/chassis-nest';
import { StatsRepository } from './stats.repository';
import { csvLine } from './visits-csv';

/** Rows read per query while a CSV export streams. */
const EXPORT_PAGE = 5000;

function codeOf(code: string): string {
  if (!isShortCode(code)) throw new BadRequestException('Invalid short code');
  return code;
}

/** The stats and the CSV export the gateway serves, for a link it has checked is the user's. */
@Controller('internal')
@UseGuards(InternalAuthGuard)
export class StatsController {
  constructor(@Inject(StatsRepository) private readonly stats: StatsRepository) {}

  @Get('stats/:code')
  async get(
    @Param('code') code: string,
    @Query('range') rawRange: unknown,
    @Query('createdAt') rawCreatedAt: unknown,
  ): Promise<LinkStats> {
    const range = statsRangeSchema.safeParse(rawRange ?? DEFAULT_STATS_RANGE);
    if (!range.success) {
      throw new BadRequestException(`range must be one of ${STATS_RANGES.join(', ')}`);
    }
    let createdAt: number | null = null;
    if (rawCreatedAt !== undefined) {
      createdAt =
        typeof rawCreatedAt === 'string' && /^\d{1,15}$/.test(rawCreatedAt)
          ? Number(rawCreatedAt)
          : NaN;
      if (Number.isNaN(createdAt))
        throw new BadRequestException('createdAt must be a time in milliseconds');
    }
    return this.stats.stats(codeOf(code), range.data, createdAt);
  }

  /**
   * Every visit of a link as CSV, oldest first, streamed a page at a time: never all of them
   * in memory, and it stops reading when the caller goes away.
   */
  @Get('visits/:code/csv')
  async csv(@Param('code') rawCode: string, @Res() res: Response): Promise<void> {
    const code = codeOf(rawCode);
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    let gone = false;
    res.on('close', () => (gone = true));
    const write = async (text: string): Promise<void> => {
      if (!res.write(text)) await once(res, 'drain');
    };
    try {
      await write(csvLine(VISITS_CSV_COLUMNS));
      let after: { createdAt: Date; id: string } | null = null;
      while (!gone) {
        const rows = await this.stats.exportPage(code, after, EXPORT_PAGE);
        let chunk = '';
        for (const row of rows) {
          chunk += csvLine([
            row.created_at.toISOString(),
            row.ip_address,
            row.country,
            row.platform,
            row.browser,
            row.device,
            row.referrer ?? '',
            String(row.bot),
          ]);
        }
        if (chunk !== '') await write(chunk);
        const last = rows[rows.length - 1];
        if (!last || rows.length < EXPORT_PAGE) break;
        after = { createdAt: last.created_at, id: last.id };
      }
    } catch (error) {
      // Headers are out: cut the connection, so the download fails instead of looking whole.
      res.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    res.end();
  }
}
