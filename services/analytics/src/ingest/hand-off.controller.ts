import { BadRequestException, Controller, Inject } from '@nestjs/common';
import {
  encodeVisitEvent,
  internalApi,
  VISIT_HAND_OFF_MAX,
  type VisitHandOffAnswer,
} from '@shortener/contracts';
import { Input, Route, type Refusal, type RouteInput } from '@shortener/chassis-nest';
import { IngestService } from './ingest.service';

/** Names the first problem, and where: `visits.5.id: Invalid UUID`. */
const refuse: Refusal = (issue) =>
  new BadRequestException(
    `Body must be {"visits": [...]} with 1 to ${VISIT_HAND_OFF_MAX} visit events; ` +
      `${issue.path.join('.') || 'body'}: ${issue.message}`,
  );

/**
 * The second way in for visits: what a redirect instance stopping while Kafka is away could
 * not publish, handed over by it. Stored by the one ingest every source uses, so an event
 * also read from Kafka later (or handed over twice) is stored once, by its id.
 */
@Controller()
export class HandOffController {
  constructor(@Inject(IngestService) private readonly ingest: IngestService) {}

  @Route(internalApi.handOffVisits, refuse)
  async handOff(
    @Input() { body }: RouteInput<typeof internalApi.handOffVisits>,
  ): Promise<VisitHandOffAnswer> {
    const unstored = await this.ingest.ingest(
      body.visits.map((event, index) => ({ value: encodeVisitEvent(event), origin: index })),
    );
    // No dead-letter topic on this path (Kafka is away): logged and counted, as the embedded
    // mode's bus does.
    for (const { origin, reason } of unstored) {
      this.ingest.metrics.deadLettered.inc();
      this.ingest.logger.warn({ event: body.visits[origin], reason }, 'handed-off visit refused');
    }
    return { taken: body.visits.length - unstored.length, refused: unstored.length };
  }
}
