// What a host composing the services in one process needs (services/embedded).
export { service } from './service';
export type { LinksAdapters } from './adapters';
export type { LinksConfig } from './config';
