import { Module, type DynamicModule } from '@nestjs/common';
import type { ServiceMetrics } from '@shortener/chassis';
import { SERVICE_METRICS } from '@shortener/chassis-nest';
import { HandOffController } from './hand-off.controller';
import { createIngestMetrics, INGEST_METRICS } from './ingest.metrics';
import { IngestRepository } from './ingest.repository';
import { IngestService, VISIT_NOTIFIER, VISIT_SOURCE } from './ingest.service';
import type { VisitNotifier } from './visit-notifier';
import type { VisitSource } from './visit-source';

/**
 * From the process's visit source (Kafka, or the in-process bus) into the analytics schema,
 * and from the redirect instances' hand-off when Kafka is away.
 */
@Module({})
export class IngestModule {
  static forRoot(source: VisitSource, notifier: VisitNotifier): DynamicModule {
    return {
      module: IngestModule,
      controllers: [HandOffController],
      providers: [
        {
          provide: INGEST_METRICS,
          inject: [SERVICE_METRICS],
          useFactory: (metrics: ServiceMetrics) => createIngestMetrics(metrics),
        },
        { provide: VISIT_SOURCE, useValue: source },
        { provide: VISIT_NOTIFIER, useValue: notifier },
        IngestRepository,
        IngestService,
      ],
    };
  }
}
