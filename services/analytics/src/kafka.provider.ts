import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Admin } from 'kafkajs';
import { VISITS_TOPIC } from '@shortener/contracts';
import { createKafka } from '@shortener/chassis/kafka';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis/nest';
import type { AnalyticsConfig } from './config';

/** The Kafka connection analytics depends on; ready when the `visits` topic answers. */
@Injectable()
export class KafkaConnection implements OnModuleInit, OnApplicationShutdown {
  private readonly admin: Admin;

  constructor(
    @Inject(SERVICE_CONFIG) config: AnalyticsConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    this.admin = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: 'analytics',
      logger,
      extra: { retry: { retries: 0 } },
    }).admin();
  }

  onModuleInit(): void {
    void this.admin.connect().catch(() => undefined);
  }

  async check(): Promise<void> {
    await this.admin.connect();
    await this.admin.fetchTopicMetadata({ topics: [VISITS_TOPIC] });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.admin.disconnect();
  }
}
