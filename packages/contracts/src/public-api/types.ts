import type { z } from 'zod';
import {
  deleteResponseSchema,
  errorResponseSchema,
  linksResponseSchema,
  shortenResponseSchema,
  userDataSchema,
  visitorsResponseSchema,
} from '../api';
import { bulkLinksResponseSchema } from '../api-requests';
import { shortLinkSchema } from '../links';
import type { NamedSchema } from '../page-routes';
import { apiKeysSchema, createdApiKeySchema, type ApiKeyScope } from '../api-keys';
import { domainSchema, domainsSchema } from '../domains';
import { linkStatsSchema, liveVisitSchema } from '../stats';
import { accountStatsSchema } from '../account-stats';

/** The value of X-Requested-With every call carries (the CSRF defence). */
export const REQUESTED_WITH_VALUE = 'XMLHttpRequest';

export type { NamedSchema } from '../page-routes';

export interface PublicAnswer {
  readonly description: string;
  /** The JSON body; none for an answer without one. */
  readonly body?: NamedSchema;
  /** A body that is not JSON: its media type (text/csv, text/event-stream). */
  readonly streams?: string;
  /** For a text/event-stream body: each event's name and the JSON its `data:` line carries. */
  readonly events?: Readonly<Record<string, NamedSchema | z.ZodType>>;
  readonly headers?: Readonly<Record<string, { description: string; schema: z.ZodType }>>;
}

export interface PublicRoute {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path as OpenAPI writes it: `{name}` for a path parameter. */
  readonly path: string;
  readonly summary: string;
  /** `signed-in`: a session is required (401 without); `anyone`: signed in or not. */
  readonly access: 'signed-in' | 'anyone';
  /**
   * The API key scope that lets a key (Authorization: Bearer) make this call in place of a
   * session; a call without one takes sessions only.
   */
  readonly apiKeyScope?: ApiKeyScope;
  /**
   * How a cross-site request is refused: the X-Requested-With header (the default), or, for
   * a call a browser makes without script headers (EventSource), Sec-Fetch-Site and Origin.
   */
  readonly csrf?: 'requested-with' | 'same-origin';
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The JSON body the call reads; none for a call that takes no body. */
  readonly body?: z.ZodType;
  /** The largest body read, in bytes, when larger than the edge's 16 KB. */
  readonly bodyLimit?: number;
  /** By status; the first 2xx is the success answer. */
  readonly answers: Readonly<Record<number, PublicAnswer>>;
}

export const PUBLIC_SCHEMAS = {
  userData: { name: 'UserData', schema: userDataSchema },
  links: { name: 'Links', schema: linksResponseSchema },
  shortenResponse: { name: 'ShortenResponse', schema: shortenResponseSchema },
  deleteResponse: { name: 'DeleteResponse', schema: deleteResponseSchema },
  visitors: { name: 'Visitors', schema: visitorsResponseSchema },
  linkStats: { name: 'LinkStats', schema: linkStatsSchema },
  accountStats: { name: 'AccountStats', schema: accountStatsSchema },
  liveVisit: { name: 'LiveVisit', schema: liveVisitSchema },
  bulkLinks: { name: 'BulkLinksResult', schema: bulkLinksResponseSchema },
  shortLink: { name: 'ShortLink', schema: shortLinkSchema },
  error: { name: 'Error', schema: errorResponseSchema },
  apiKeys: { name: 'ApiKeys', schema: apiKeysSchema },
  createdApiKey: { name: 'CreatedApiKey', schema: createdApiKeySchema },
  domain: { name: 'Domain', schema: domainSchema },
  domains: { name: 'Domains', schema: domainsSchema },
} as const satisfies Record<string, NamedSchema>;
