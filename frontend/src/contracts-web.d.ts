/**
 * `@shortener/contracts/web`, made at build time by vite/web-contracts.ts: the contracts'
 * constants and a zod-like `safeParse` per answer schema, without zod.
 */
import type * as contracts from '@shortener/contracts';
import type { Schema } from './lib/api';

export declare const MESSAGES: typeof contracts.MESSAGES;
export declare const REQUESTED_WITH_HEADER: typeof contracts.REQUESTED_WITH_HEADER;
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

export declare const userDataSchema: Schema<contracts.UserData>;
export declare const linksResponseSchema: Schema<contracts.LinksResponse>;
export declare const shortenResponseSchema: Schema<contracts.ShortenResponse>;
export declare const deleteResponseSchema: Schema<contracts.DeleteResponse>;
export declare const visitorsResponseSchema: Schema<contracts.VisitorsResponse>;
export declare const errorResponseSchema: Schema<contracts.ErrorResponse>;
export declare const shortLinkSchema: Schema<contracts.ShortLink>;

export type {
  DeleteResponse,
  EditLinkBody,
  ErrorResponse,
  ExpiryDays,
  LinksResponse,
  LinksSort,
  ShortenResponse,
  ShortLink,
  UserData,
  Visit,
  VisitorsResponse,
} from '@shortener/contracts';
