import type { LinkCache } from '@shortener/link-cache';

/** The link cache the process chose (Redis, or the embedded mode's in-process one). */
export const LINK_CACHE = Symbol('LINK_CACHE');
export type { LinkCache };
