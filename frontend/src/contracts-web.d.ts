/**
 * `@shortener/contracts/web`, made at build time by vite/web-contracts.ts:
 * the contracts' constants, calls and answer checks, without zod.
 * Written from the lists of vite/web-contracts-source.ts by
 * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.
 */
import type * as contracts from '@shortener/contracts';
import type { WebRouteOf, WebSchemaOf } from './lib/api-route';

export declare const MESSAGES: typeof contracts.MESSAGES;
export declare const REQUESTED_WITH_HEADER: typeof contracts.REQUESTED_WITH_HEADER;
export declare const REQUESTED_WITH_VALUE: typeof contracts.REQUESTED_WITH_VALUE;
export declare const NEXT_CURSOR_HEADER: typeof contracts.NEXT_CURSOR_HEADER;
export declare const TOTAL_COUNT_HEADER: typeof contracts.TOTAL_COUNT_HEADER;
export declare const LOGGED_IN_COOKIE: typeof contracts.LOGGED_IN_COOKIE;
export declare const EXPIRY_DAYS: typeof contracts.EXPIRY_DAYS;
export declare const DEFAULT_EXPIRY_DAYS: typeof contracts.DEFAULT_EXPIRY_DAYS;
export declare const ANONYMOUS_MAX_EXPIRY_DAYS: typeof contracts.ANONYMOUS_MAX_EXPIRY_DAYS;
export declare const VISITS_CURSOR_PATTERN: typeof contracts.VISITS_CURSOR_PATTERN;
export declare const DELETE_UNDO_OFFER_MS: typeof contracts.DELETE_UNDO_OFFER_MS;
export declare const DELETED_CODE_KEPT_DAYS: typeof contracts.DELETED_CODE_KEPT_DAYS;
export declare const LINKS_PAGE_SIZE: typeof contracts.LINKS_PAGE_SIZE;
export declare const LINKS_SEARCH_MAX: typeof contracts.LINKS_SEARCH_MAX;
export declare const LINKS_SORTS: typeof contracts.LINKS_SORTS;
export declare const ALIAS_MAX_LENGTH: typeof contracts.ALIAS_MAX_LENGTH;
export declare const ALIAS_MESSAGES: typeof contracts.ALIAS_MESSAGES;
export declare const WEB_APP_PAGES: typeof contracts.WEB_APP_PAGES;
export declare const SHORT_LINK_PREFIX: typeof contracts.SHORT_LINK_PREFIX;

export declare const userDataSchema: WebSchemaOf<typeof contracts.userDataSchema>;
export declare const linksResponseSchema: WebSchemaOf<typeof contracts.linksResponseSchema>;
export declare const shortenResponseSchema: WebSchemaOf<typeof contracts.shortenResponseSchema>;
export declare const deleteResponseSchema: WebSchemaOf<typeof contracts.deleteResponseSchema>;
export declare const visitorsResponseSchema: WebSchemaOf<typeof contracts.visitorsResponseSchema>;
export declare const errorResponseSchema: WebSchemaOf<typeof contracts.errorResponseSchema>;
export declare const shortLinkSchema: WebSchemaOf<typeof contracts.shortLinkSchema>;

export declare const webApi: {
  getUser: WebRouteOf<typeof contracts.publicApi.getUser>;
  listLinks: WebRouteOf<typeof contracts.publicApi.listLinks>;
  shorten: WebRouteOf<typeof contracts.publicApi.shorten>;
  deleteLink: WebRouteOf<typeof contracts.publicApi.deleteLink>;
  editLink: WebRouteOf<typeof contracts.publicApi.editLink>;
  restoreLink: WebRouteOf<typeof contracts.publicApi.restoreLink>;
  getVisitors: WebRouteOf<typeof contracts.publicApi.getVisitors>;
};

export type * from '@shortener/contracts';
