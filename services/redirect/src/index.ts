// What a host composing the services in one process needs (services/embedded).
export { startRedirect, type RedirectOptions, type RunningRedirect } from './server';
export { loadRedirectConfig, type RedirectConfig } from './config';
export { connectAdapters, kafkaVisitPublisher, type RedirectAdapters } from './adapters';
export type { VisitPublisher } from './visit-queue';
