// What a host composing the services in one process needs (services/embedded).
export { startAnalytics, type AnalyticsAdapters, type AnalyticsOptions } from './service';
export { loadAnalyticsConfig, type AnalyticsConfig } from './config';
export { connectAdapters } from './adapters';
export { InProcessVisitBus } from './ingest/in-process-bus';
export { kafkaVisitSource } from './ingest/kafka-visit-source';
