/**
 * `@shortener/contracts/web-stats`, made at build time by vite/web-contracts.ts: the stats
 * section's constants and answer checks, loaded with the stats code only.
 */
import type * as contracts from '@shortener/contracts';
import type { Schema } from './lib/api';

export declare const STATS_RANGES: typeof contracts.STATS_RANGES;
export declare const DEFAULT_STATS_RANGE: typeof contracts.DEFAULT_STATS_RANGE;
export declare const UNKNOWN_COUNTRY: typeof contracts.UNKNOWN_COUNTRY;
export declare const DIRECT_REFERRER: typeof contracts.DIRECT_REFERRER;
export declare const OTHER_ENTRY: typeof contracts.OTHER_ENTRY;
export declare const LIVE_EVENTS: typeof contracts.LIVE_EVENTS;
export declare const LIVE_END_REASONS: typeof contracts.LIVE_END_REASONS;

export declare const linkStatsSchema: Schema<contracts.LinkStats>;
export declare const liveVisitSchema: Schema<contracts.LiveVisit>;

export type { LinkStats, LiveVisit, StatsRange } from '@shortener/contracts';
