import type { Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { VISITS_TOPIC, visitEventSchema, type VisitEvent } from '@shortener/contracts';
import type { VisitPublisher } from './visit-queue';

/**
 * Publishes visits to the `visits` topic with an idempotent producer (acks from all
 * in-sync replicas), keyed by urlID so one link's visits stay in order on one partition.
 * Each event is checked against the shared schema first: a bad one is logged and skipped,
 * never sent, never blocking the rest.
 */
export class KafkaVisitPublisher implements VisitPublisher {
  constructor(
    private readonly producer: Producer,
    private readonly logger: Logger,
    private readonly onInvalid: () => void,
  ) {}

  async publish(events: VisitEvent[]): Promise<void> {
    const messages = [];
    for (const event of events) {
      const checked = visitEventSchema.safeParse(event);
      if (!checked.success) {
        this.onInvalid();
        this.logger.error({ issues: checked.error.issues }, 'visit event failed its schema');
        continue;
      }
      messages.push({ key: event.urlID, value: JSON.stringify(checked.data) });
    }
    if (messages.length === 0) return;
    await this.producer.send({ topic: VISITS_TOPIC, acks: -1, messages });
  }
}
