import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@shortener/chassis/nest';
import type { AnalyticsConfig } from '../config';
import { VisitsRepository, type VisitRow } from '../visits/visits.repository';
import { INGEST_METRICS, type IngestMetrics } from './ingest.metrics';
import { anonymizeIp } from './ip-address';
import { UserAgentParser } from './user-agent.parser';
import type { VisitEnrichment } from './visit-batch';

/** What every visit source shares: how events become rows, and storing them, counted. */
@Injectable()
export class IngestService {
  readonly enrich: VisitEnrichment;

  constructor(
    @Inject(VisitsRepository) private readonly visits: VisitsRepository,
    @Inject(INGEST_METRICS) readonly metrics: IngestMetrics,
    @Inject(SERVICE_CONFIG) private readonly config: AnalyticsConfig,
  ) {
    const userAgents = new UserAgentParser(config.USER_AGENT_CACHE_SIZE);
    this.enrich = {
      userAgent: (userAgent) => userAgents.parse(userAgent),
      ipAddress: config.ANONYMIZE_IP ? anonymizeIp : (ip) => ip,
    };
  }

  /** One transaction; throws when PostgreSQL fails, and then nothing of it is stored. */
  async store(rows: readonly VisitRow[], repeatedInBatch: number): Promise<void> {
    const outcome = await this.visits.storeVisits(rows, this.config.INGEST_CHUNK_ROWS);
    this.metrics.stored.inc(outcome.stored);
    this.metrics.duplicates.inc(outcome.duplicates + repeatedInBatch);
    this.metrics.ofDeletedLinks.inc(outcome.ofDeletedLinks);
  }
}
