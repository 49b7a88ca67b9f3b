// What a host composing the services in one process needs (services/embedded).
export { service } from './service';
export type { GatewayAdapters } from './adapters';
export type { GatewayConfig } from './config';
export { memoryRateLimiters } from './rate-limit/memory-rate-limiters';
export { InProcessKeyRevocations } from './api-keys/key-revocations';
