// What a host composing the services in one process needs (services/embedded).
export { startAuth, type AuthOptions } from './service';
export { loadAuthConfig, type AuthConfig } from './config';
