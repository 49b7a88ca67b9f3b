/**
 * `@shortener/contracts/web-stats`, made at build time by vite/web-contracts.ts:
 * the stats section's constants, calls and answer checks, loaded with its code only.
 * Written from the lists of vite/web-contracts-source.ts by
 * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.
 */
import type * as contracts from '@shortener/contracts';
import type { WebRouteOf, WebSchemaOf } from './lib/api-route';

export declare const STATS_RANGES: typeof contracts.STATS_RANGES;
export declare const DEFAULT_STATS_RANGE: typeof contracts.DEFAULT_STATS_RANGE;
export declare const UNKNOWN_COUNTRY: typeof contracts.UNKNOWN_COUNTRY;
export declare const DIRECT_REFERRER: typeof contracts.DIRECT_REFERRER;
export declare const OTHER_ENTRY: typeof contracts.OTHER_ENTRY;
export declare const LIVE_EVENTS: typeof contracts.LIVE_EVENTS;
export declare const LIVE_END_REASONS: typeof contracts.LIVE_END_REASONS;

export declare const linkStatsSchema: WebSchemaOf<typeof contracts.linkStatsSchema>;
export declare const liveVisitSchema: WebSchemaOf<typeof contracts.liveVisitSchema>;

export declare const statsApi: {
  getStats: WebRouteOf<typeof contracts.publicApi.getStats>;
  getLiveVisits: WebRouteOf<typeof contracts.publicApi.getLiveVisits>;
  getVisitsCsv: WebRouteOf<typeof contracts.publicApi.getVisitsCsv>;
};

export type * from '@shortener/contracts';
