import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { IN_PROCESS, type ServiceMetrics } from '@shortener/chassis';
import { createKafka } from '@shortener/chassis-kafka';
import { SERVICE_CONFIG, SERVICE_LOGGER, SERVICE_METRICS } from '@shortener/chassis-nest';
import type { AnalyticsConfig } from '../config';
import { VisitsModule } from '../visits/visits.module';
import { DeadLetterProducer } from './dead-letter.producer';
import { InProcessVisitsConsumer } from './in-process.consumer';
import { createIngestMetrics, INGEST_METRICS } from './ingest.metrics';
import { IngestService } from './ingest.service';
import { VISIT_SOURCE } from './visit-source';
import { DEAD_LETTERS, KAFKA, VisitsConsumer } from './visits.consumer';

const kafkaSource: Provider[] = [
  {
    provide: KAFKA,
    inject: [SERVICE_CONFIG, SERVICE_LOGGER],
    useFactory: (config: AnalyticsConfig, logger: Logger): Kafka =>
      createKafka({
        brokers: config.KAFKA_BROKERS,
        clientId: 'analytics',
        logger,
        security: config,
      }),
  },
  {
    provide: DEAD_LETTERS,
    inject: [KAFKA, SERVICE_CONFIG],
    useFactory: (kafka: Kafka, config: AnalyticsConfig) =>
      new DeadLetterProducer(kafka, config.VISITS_DLQ_TOPIC),
  },
  { provide: VISIT_SOURCE, useClass: VisitsConsumer },
];

/** From the `visits` topic (or, embedded, the in-process visit bus) into the analytics schema. */
@Module({})
export class IngestModule {
  static forRoot(config: AnalyticsConfig): DynamicModule {
    const inProcess = config.KAFKA_BROKERS.length === 1 && config.KAFKA_BROKERS[0] === IN_PROCESS;
    return {
      module: IngestModule,
      imports: [VisitsModule],
      providers: [
        {
          provide: INGEST_METRICS,
          inject: [SERVICE_METRICS],
          useFactory: (metrics: ServiceMetrics) => createIngestMetrics(metrics),
        },
        IngestService,
        ...(inProcess
          ? [{ provide: VISIT_SOURCE, useClass: InProcessVisitsConsumer }]
          : kafkaSource),
      ],
      exports: [VISIT_SOURCE],
    };
  }
}
