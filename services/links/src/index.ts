// What a host composing the services in one process needs (services/embedded).
export { startLinks, type LinksAdapters, type LinksOptions } from './service';
export { loadLinksConfig, type LinksConfig } from './config';
export { connectAdapters } from './adapters';
