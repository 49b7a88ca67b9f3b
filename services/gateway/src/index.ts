// What a host composing the services in one process needs (services/embedded).
export { startGateway, type GatewayAdapters, type GatewayOptions } from './service';
export { loadGatewayConfig, type GatewayConfig } from './config';
export { connectAdapters } from './adapters';
export { MemoryRateLimiter } from './rate-limit/memory-rate-limiter';
