/**
 * `@shortener/contracts/web-domains`, made at build time by vite/web-contracts.ts:
 * the domains section's constants, calls and answer checks, loaded with its page only.
 * Written from the lists of vite/web-contracts-source.ts by
 * `npx vitest run -u src/contracts-web.test.ts` (the test fails when it is stale): do not edit.
 */
import type * as contracts from '@shortener/contracts';
import type { WebRouteOf, WebSchemaOf } from './lib/api-route';

export declare const DOMAIN_HOST_MAX: typeof contracts.DOMAIN_HOST_MAX;

export declare const domainSchema: WebSchemaOf<typeof contracts.domainSchema>;
export declare const domainsSchema: WebSchemaOf<typeof contracts.domainsSchema>;

export declare const domainsApi: {
  listDomains: WebRouteOf<typeof contracts.publicApi.listDomains>;
  addDomain: WebRouteOf<typeof contracts.publicApi.addDomain>;
  verifyDomain: WebRouteOf<typeof contracts.publicApi.verifyDomain>;
  deleteDomain: WebRouteOf<typeof contracts.publicApi.deleteDomain>;
  restoreDomain: WebRouteOf<typeof contracts.publicApi.restoreDomain>;
};

export type * from '@shortener/contracts';
