// What a host composing the services in one process needs (services/embedded).
export { service } from './service';
export type { RedirectAdapters } from './adapters';
export type { RedirectConfig } from './config';
export type { VisitPublisher } from './visit-queue';
