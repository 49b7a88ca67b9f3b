export * from './link-cache';
export * from './redis-link-cache';
export * from './memory-link-cache';
export * from './adapters';
export * from './target-url';
export * from './link-password';
