export * from './link-cache';
export * from './redis-link-cache';
