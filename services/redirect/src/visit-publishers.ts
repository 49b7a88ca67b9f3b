import type { Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { VISITS_TOPIC, visitEventSchema, type VisitEvent } from '@shortener/contracts';
import type { VisitPublisher } from './visit-queue';

/**
 * Checks each event against the shared schema before it leaves, whatever the publisher: a
 * bad one is logged, counted and skipped, never sent, never blocking the rest.
 */
export function checkedPublisher(
  publisher: VisitPublisher,
  logger: Logger,
  onInvalid: () => void,
): VisitPublisher {
  return {
    publish(events: VisitEvent[]): Promise<void> {
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
      return valid.length > 0 ? publisher.publish(valid) : Promise.resolve();
    },
  };
}

/**
 * Publishes visits to the `visits` topic with an idempotent producer (acks from all
 * in-sync replicas), keyed by urlID so one link's visits stay in order on one partition.
 */
export class KafkaVisitPublisher implements VisitPublisher {
  constructor(private readonly producer: Producer) {}

  async publish(events: VisitEvent[]): Promise<void> {
    await this.producer.send({
      topic: VISITS_TOPIC,
      acks: -1,
      messages: events.map((event) => ({ key: event.urlID, value: JSON.stringify(event) })),
    });
  }
}
