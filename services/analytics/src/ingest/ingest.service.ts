import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@shortener/chassis-nest';
import { CountryLookup, UserAgentParser } from '@shortener/visitor';
import type { AnalyticsConfig } from '../config';
import { dataRefusal } from './database-refusal';
import { INGEST_METRICS, type IngestMetrics } from './ingest.metrics';
import { IngestRepository, type PreparedVisits, type VisitRow } from './ingest.repository';
import { anonymizeIp } from './ip-address';
import type { VisitNotifier } from './visit-notifier';
import {
  parseBatchYielding,
  planParsedYielding,
  utcDay,
  type Incoming,
  type PreparedBatch,
  type Unstored,
  type VisitEnrichment,
} from './visit-batch';
import { VisitorKeys, visitorHash } from './visitors';
import type { VisitSink, VisitSource } from './visit-source';

export const VISIT_SOURCE = Symbol('VISIT_SOURCE');
export const VISIT_NOTIFIER = Symbol('VISIT_NOTIFIER');

/** A row PostgreSQL refused for its data, by its index in the rows given, and its reason. */
interface RefusedRow {
  index: number;
  reason: string;
}

/**
 * How visit events become rows, for every source: parsed and checked, enriched (User-Agent,
 * IP as configured), stored once each, counted. Starts the process's visit source when the
 * service runs and stops it at shutdown.
 */
@Injectable()
export class IngestService implements VisitSink, OnApplicationBootstrap, OnApplicationShutdown {
  readonly enrich: Omit<VisitEnrichment, 'visitor'>;
  private readonly visitorKeys: VisitorKeys;

  constructor(
    @Inject(IngestRepository) private readonly visits: IngestRepository,
    @Inject(INGEST_METRICS) readonly metrics: IngestMetrics,
    @Inject(SERVICE_CONFIG) private readonly config: AnalyticsConfig,
    @Inject(SERVICE_LOGGER) readonly logger: Logger,
    @Inject(VISIT_SOURCE) private readonly source: VisitSource,
    @Inject(VISIT_NOTIFIER) private readonly notifier: VisitNotifier,
  ) {
    const userAgents = new UserAgentParser(config.USER_AGENT_CACHE_SIZE);
    const countries = new CountryLookup(config.GEOIP_DATABASE);
    this.enrich = {
      userAgent: (userAgent) => userAgents.parse(userAgent),
      ipAddress: config.ANONYMIZE_IP ? anonymizeIp : (ip) => ip,
      country: (ip) => countries.country(ip),
    };
    this.visitorKeys = new VisitorKeys(visits);
  }

  onApplicationBootstrap(): void {
    this.source.start(this);
  }

  /** Stops taking events: the batch in hand finishes, or is left to come again. */
  onApplicationShutdown(): Promise<void> {
    return this.source.stop();
  }

  async ingest<Origin>(incoming: readonly Incoming<Origin>[]): Promise<Unstored<Origin>[]> {
    return this.storePlan(await this.prepare(incoming));
  }

  /**
   * A batch parsed, checked and enriched, its rows made: nothing is stored yet. The work is
   * done a slice at a time, letting the event loop turn between slices, so a batch before
   * that is being stored meanwhile is not held up (the Kafka source overlaps the two).
   * Throws only when the day keys cannot be read (an outage).
   */
  async prepare<Origin>(incoming: readonly Incoming<Origin>[]): Promise<PreparedBatch<Origin>> {
    const parsed = await parseBatchYielding(incoming);
    const keys = await this.visitorKeys.forDays(
      new Set(parsed.events.map((event) => utcDay(event.timestamp))),
    );
    const plan = await planParsedYielding(parsed, {
      ...this.enrich,
      visitor: (day, ip, userAgent) => visitorHash(keys.get(day)!, ip, userAgent),
    });
    const statements = await this.visits.prepareVisits(plan.visits, this.config.INGEST_CHUNK_ROWS);
    return { ...plan, statements };
  }

  /** Stores a prepared batch; answers what cannot be stored for its data (see ingest). */
  async storePlan<Origin>(plan: PreparedBatch<Origin>): Promise<Unstored<Origin>[]> {
    const refused = await this.storeIsolating(plan.visits, plan.repeated, plan.statements);
    return [
      ...plan.rejected,
      ...refused.map(({ index, reason }) => ({ ...plan.origins[index]!, reason })),
    ];
  }

  /** One transaction; throws when PostgreSQL fails, and then nothing of it is stored. */
  private async store(rows: readonly VisitRow[], prepared?: PreparedVisits): Promise<void> {
    const outcome = await this.visits.storeVisits(rows, this.config.INGEST_CHUNK_ROWS, prepared);
    this.metrics.stored.inc(outcome.stored);
    this.metrics.duplicates.inc(outcome.duplicates);
    this.metrics.ofDeletedLinks.inc(outcome.ofDeletedLinks);
    // Committed: the live streams may show them now.
    if (outcome.inserted.length > 0) this.notifier.stored(outcome.inserted, outcome.owners);
  }

  /**
   * Stores rows, splitting in halves what PostgreSQL refuses for its data until each refused
   * row is alone (returned with the reason); any other failure throws for a retry of all.
   */
  async storeIsolating(
    rows: readonly VisitRow[],
    repeatedInBatch: number,
    prepared?: PreparedVisits,
  ): Promise<RefusedRow[]> {
    const refused: RefusedRow[] = [];
    const attempt = async (start: number, end: number): Promise<void> => {
      try {
        const whole = start === 0 && end === rows.length;
        await this.store(whole ? rows : rows.slice(start, end), whole ? prepared : undefined);
      } catch (error) {
        const reason = dataRefusal(error);
        if (reason === undefined) throw error;
        if (end - start === 1) {
          refused.push({ index: start, reason });
          this.metrics.refusedByDatabase.inc();
          return;
        }
        const middle = start + Math.ceil((end - start) / 2);
        await attempt(start, middle);
        await attempt(middle, end);
      }
    };
    if (rows.length > 0) await attempt(0, rows.length);
    this.metrics.duplicates.inc(repeatedInBatch);
    return refused;
  }
}
