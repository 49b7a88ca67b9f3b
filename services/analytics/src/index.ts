// What a host composing the services in one process needs (services/embedded).
export { service } from './service';
export type { AnalyticsAdapters } from './adapters';
export type { AnalyticsConfig } from './config';
export { InProcessVisitBus } from './ingest/in-process-bus';
export { InProcessLiveVisits } from './ingest/visit-notifier';
