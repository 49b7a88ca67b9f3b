import { Module, type DynamicModule } from '@nestjs/common';
import type { ServiceMetrics } from '@shortener/chassis';
import { SERVICE_METRICS } from '@shortener/chassis-nest';
import { VisitsModule } from '../visits/visits.module';
import { createIngestMetrics, INGEST_METRICS } from './ingest.metrics';
import { IngestService, VISIT_SOURCE } from './ingest.service';
import type { VisitSource } from './visit-source';

/** From the process's visit source (Kafka, or the in-process bus) into the analytics schema. */
@Module({})
export class IngestModule {
  static forRoot(source: VisitSource): DynamicModule {
    return {
      module: IngestModule,
      imports: [VisitsModule],
      providers: [
        {
          provide: INGEST_METRICS,
          inject: [SERVICE_METRICS],
          useFactory: (metrics: ServiceMetrics) => createIngestMetrics(metrics),
        },
        { provide: VISIT_SOURCE, useValue: source },
        IngestService,
      ],
    };
  }
}
