// The light core every service loads: no framework, no database, cache or broker driver.
// Those live in @shortener/chassis-nest, -postgres, -redis and -kafka, so a service installs
// only the ones it uses (the redirect service has neither Nest nor TypeORM).
export * from './config';
export * from './logger';
export * from './metrics';
export * from './readiness';
export * from './ops-http';
export * from './http-server';
export * from './keep-alive';
export * from './shutdown';
export * from './startup';
export * from './retry';
export * from './periodic';
export * from './adapter';
export * from './service';
export * from './internal-auth';
export * from './internal-client';
export * from './client-key';
export * from './same-origin';
export * from './trusted-proxies';
export * from './client-ip';
export * from './unix-socket';
export * from './serve';
export * from './branded-host';
