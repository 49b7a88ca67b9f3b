import type { VisitEvent } from '@shortener/contracts';

export type VisitBatchHandler = (events: VisitEvent[]) => Promise<void>;

/**
 * The embedded mode's stand-in for the `visits` topic: the redirect service publishes, the
 * analytics consumer in the same process stores. A publish succeeds only once the batch is
 * stored, so the redirect's queue keeps and retries it otherwise, as it does with Kafka.
 */
export class InProcessVisitBus {
  private handler: VisitBatchHandler | undefined;

  async publish(events: VisitEvent[]): Promise<void> {
    if (!this.handler) throw new Error('no visit consumer is running yet');
    await this.handler(events);
  }

  /** Registers the one consumer; returns what unregisters it. */
  consume(handler: VisitBatchHandler): () => void {
    this.handler = handler;
    return () => {
      if (this.handler === handler) this.handler = undefined;
    };
  }

  get hasConsumer(): boolean {
    return this.handler !== undefined;
  }
}

const SHARED = Symbol.for('shortener.visit-bus');

/** The process's one bus, whichever copy of this module asks for it. */
export function sharedVisitBus(): InProcessVisitBus {
  const holder = globalThis as { [SHARED]?: InProcessVisitBus };
  holder[SHARED] ??= new InProcessVisitBus();
  return holder[SHARED];
}

/** KAFKA_BROKERS=memory (or REDIS_URL=memory://) selects the in-process adapters. */
export const IN_PROCESS = 'memory';
