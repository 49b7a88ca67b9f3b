/**
 * `@shortener/contracts/web-link-rules`, made at build time by vite/web-contracts.ts:
 * the link options' constants and the call that creates a link with them.
 * Written from the lists of vite/web-contracts-source.ts by
 * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.
 */
import type * as contracts from '@shortener/contracts';
import type { WebRouteOf, WebSchemaOf } from './lib/api-route';

export declare const LINK_PASSWORD_MAX: typeof contracts.LINK_PASSWORD_MAX;
export declare const MAX_VISITS_MAX: typeof contracts.MAX_VISITS_MAX;

export declare const bulkLinksResponseSchema: WebSchemaOf<typeof contracts.bulkLinksResponseSchema>;

export declare const linkRulesApi: {
  createLinks: WebRouteOf<typeof contracts.publicApi.createLinks>;
};

export type * from '@shortener/contracts';
