import type { Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { VISITS_TOPIC, visitEventSchema, type VisitEvent } from '@shortener/contracts';
import type { InProcessVisitBus } from '@shortener/chassis';
import type { VisitPublisher } from './visit-queue';

/**
 * Checks each event against the shared schema before it leaves: a bad one is logged,
 * counted and skipped, never sent, never blocking the rest.
 */
function checked(events: VisitEvent[], logger: Logger, onInvalid: () => void): VisitEvent[] {
  const valid: VisitEvent[] = [];
  for (const event of events) {
    const result = visitEventSchema.safeParse(event);
    if (result.success) {
      valid.push(result.data);
    } else {
      onInvalid();
      logger.error({ issues: result.error.issues }, 'visit event failed its schema');
    }
  }
  return valid;
}

/**
 * Publishes visits to the `visits` topic with an idempotent producer (acks from all
 * in-sync replicas), keyed by urlID so one link's visits stay in order on one partition.
 */
export class KafkaVisitPublisher implements VisitPublisher {
  constructor(
    private readonly producer: Producer,
    private readonly logger: Logger,
    private readonly onInvalid: () => void,
  ) {}

  async publish(events: VisitEvent[]): Promise<void> {
    const messages = checked(events, this.logger, this.onInvalid).map((event) => ({
      key: event.urlID,
      value: JSON.stringify(event),
    }));
    if (messages.length > 0) {
      await this.producer.send({ topic: VISITS_TOPIC, acks: -1, messages });
    }
  }
}

/** The embedded mode: hands visits to the analytics consumer running in this process. */
export class InProcessVisitPublisher implements VisitPublisher {
  constructor(
    private readonly bus: InProcessVisitBus,
    private readonly logger: Logger,
    private readonly onInvalid: () => void,
  ) {}

  async publish(events: VisitEvent[]): Promise<void> {
    const valid = checked(events, this.logger, this.onInvalid);
    if (valid.length > 0) await this.bus.publish(valid);
  }
}
