import { BadRequestException, Controller, Inject } from '@nestjs/common';
import {
  CURSOR_MESSAGE,
  internalApi,
  isShortCode,
  VISITS_PAGE_DEFAULT,
  type VisitCounts,
  type VisitsDeleted,
  type VisitsPage,
} from '@shortener/contracts';
import { Input, Route, type RouteInput } from '@shortener/chassis-nest';
import { decodeCursor, encodeCursor } from './visit-cursor';
import { PurgesRepository } from './purges.repository';
import { VisitsRepository } from './visits.repository';

const badCodes = (): BadRequestException =>
  new BadRequestException('Body must be {"codes": [...]} with at most 1000 short codes');

/** The read side the gateway calls, and the delete the links service calls. */
@Controller()
export class VisitsController {
  constructor(
    @Inject(VisitsRepository) private readonly visits: VisitsRepository,
    @Inject(PurgesRepository) private readonly purges: PurgesRepository,
  ) {}

  @Route(internalApi.visitsPage)
  async page(
    @Input() { params, query }: RouteInput<typeof internalApi.visitsPage>,
  ): Promise<VisitsPage> {
    const { code } = params;
    if (!isShortCode(code)) throw new BadRequestException('Invalid short code');
    const limit = query.limit ?? VISITS_PAGE_DEFAULT;
    let after = null;
    if (query.cursor !== undefined) {
      after = decodeCursor(query.cursor);
      if (!after) throw new BadRequestException(CURSOR_MESSAGE);
    }
    // One row more than asked tells whether another page follows.
    const rows = await this.visits.page(code, limit + 1, after, query);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      visits: page.map((row) => row.visit),
      nextCursor: rows.length > limit && last ? encodeCursor(last.cursor) : null,
    };
  }

  @Route(internalApi.visitCounts, badCodes)
  async counts(
    @Input() { body }: RouteInput<typeof internalApi.visitCounts>,
  ): Promise<VisitCounts> {
    return { counts: await this.visits.counts(body.codes) };
  }

  @Route(internalApi.deleteVisits, badCodes)
  async delete(
    @Input() { body }: RouteInput<typeof internalApi.deleteVisits>,
  ): Promise<VisitsDeleted> {
    return { deleted: await this.purges.deleteLinks(body.codes) };
  }
}
