import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  codesRequestSchema,
  isShortCode,
  VISITS_PAGE_DEFAULT,
  VISITS_PAGE_MAX,
  type CodesRequest,
  type VisitCounts,
  type VisitsDeleted,
  type VisitsPage,
} from '@shortener/contracts';
import { InternalAuthGuard } from '@shortener/chassis-nest';
import { decodeCursor, encodeCursor } from './visit-cursor';
import { VisitsRepository } from './visits.repository';

function pageSize(raw: unknown): number {
  if (raw === undefined) return VISITS_PAGE_DEFAULT;
  const limit = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 0;
  if (limit < 1) {
    throw new BadRequestException(`limit must be a whole number from 1 to ${VISITS_PAGE_MAX}`);
  }
  return Math.min(limit, VISITS_PAGE_MAX);
}

function codesOf(body: unknown): CodesRequest['codes'] {
  const request = codesRequestSchema.safeParse(body);
  if (!request.success) {
    throw new BadRequestException('Body must be {"codes": [...]} with at most 1000 short codes');
  }
  return request.data.codes;
}

/** The read side the gateway calls, and the delete the links service calls. */
@Controller('internal')
@UseGuards(InternalAuthGuard)
export class VisitsController {
  constructor(@Inject(VisitsRepository) private readonly visits: VisitsRepository) {}

  @Get('visits/:code')
  async page(
    @Param('code') code: string,
    @Query('limit') rawLimit: unknown,
    @Query('cursor') rawCursor: unknown,
  ): Promise<VisitsPage> {
    if (!isShortCode(code)) throw new BadRequestException('Invalid short code');
    const limit = pageSize(rawLimit);
    let after = null;
    if (rawCursor !== undefined) {
      after = typeof rawCursor === 'string' ? decodeCursor(rawCursor) : null;
      if (!after) throw new BadRequestException('Invalid cursor');
    }
    // One row more than asked tells whether another page follows.
    const rows = await this.visits.page(code, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      visits: page.map((row) => row.visit),
      nextCursor: rows.length > limit && last ? encodeCursor(last.cursor) : null,
    };
  }

  @Post('visit-counts')
  @HttpCode(200)
  async counts(@Body() body: unknown): Promise<VisitCounts> {
    return { counts: await this.visits.counts(codesOf(body)) };
  }

  @Post('visits/delete')
  @HttpCode(200)
  async delete(@Body() body: unknown): Promise<VisitsDeleted> {
    return { deleted: await this.visits.deleteLinks(codesOf(body)) };
  }
}
