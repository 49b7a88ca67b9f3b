import { analyticsApi } from './analytics';
import { domainsApi } from './domains';
import { keysApi } from './keys';
import { linksApi } from './links';
import { statsApi } from './stats';
import type { PublicRoute } from './types';
import { userApi } from './user';

export * from './types';

/**
 * Each call of the public API (SPEC.md section 7) described once: its route, who may make
 * it, its parameters and every answer with its schema. The gateway's OpenAPI description is
 * generated from this list, and each of the gateway's handlers is bound to its entry
 * (@Route of @shortener/chassis-nest), which gives its method, path and inputs. One file per
 * area beside this one.
 */
export const publicApi = {
  ...userApi,
  ...linksApi,
  ...statsApi,
  ...analyticsApi,
  ...keysApi,
  ...domainsApi,
} as const satisfies Record<string, PublicRoute>;

export type PublicApi = typeof publicApi;
