// What a host composing the services in one process needs (services/embedded).
export { service } from './service';
export type { AuthConfig } from './config';
