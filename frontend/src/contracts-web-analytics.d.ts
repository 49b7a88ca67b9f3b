/**
 * `@shortener/contracts/web-analytics`, made at build time by vite/web-contracts.ts:
 * the analytics page's constants, call and answer check, loaded with its page only.
 * Written from the lists of vite/web-contracts-source.ts by
 * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.
 */
import type * as contracts from '@shortener/contracts';
import type { WebRouteOf, WebSchemaOf } from './lib/api-route';

export declare const STATS_RANGES: typeof contracts.STATS_RANGES;
export declare const DEFAULT_STATS_RANGE: typeof contracts.DEFAULT_STATS_RANGE;
export declare const OTHER_ENTRY: typeof contracts.OTHER_ENTRY;

export declare const accountStatsSchema: WebSchemaOf<typeof contracts.accountStatsSchema>;

export declare const analyticsApi: {
  getAnalytics: WebRouteOf<typeof contracts.publicApi.getAnalytics>;
  getAnalyticsCsv: WebRouteOf<typeof contracts.publicApi.getAnalyticsCsv>;
  getAnalyticsLive: WebRouteOf<typeof contracts.publicApi.getAnalyticsLive>;
};

export type * from '@shortener/contracts';
