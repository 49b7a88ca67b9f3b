import { z } from 'zod';
import { REQUESTED_WITH_HEADER } from '../api';
import { addDomainRequestSchema, DOMAIN_MESSAGES } from '../domains';
import { DELETE_UNDO_WINDOW_DEFAULT_MS } from '../links';
import { EDGE_ANSWERS, error, sessionOnly, UNDECODABLE, unauthorized } from './answers';
import { PUBLIC_SCHEMAS, type PublicRoute } from './types';

/**
 * Branded domains (issue 40): managed with a session only, never with an API key (no
 * apiKeyScope), as API keys are.
 */

const hostParams = z.object({
  host: z
    .string()
    .describe('The domain, as added (any letter case; a Unicode name or its punycode).'),
});

const refusedHost =
  'The host refused: ' +
  [
    `'${DOMAIN_MESSAGES.hostRequired}'`,
    `'${DOMAIN_MESSAGES.hostInvalid}'`,
    `'${DOMAIN_MESSAGES.ipLiteral}'`,
    `'${DOMAIN_MESSAGES.oneLabel}'`,
    `'${DOMAIN_MESSAGES.tooLong}'`,
    `'${DOMAIN_MESSAGES.ownHost}'`,
  ].join('; ');

const notYours = error(`'${DOMAIN_MESSAGES.notFound}': unknown, deleted or not yours`);
const sessionOnlyEdge = sessionOnly(`${REQUESTED_WITH_HEADER} missing`);
const undoSeconds = DELETE_UNDO_WINDOW_DEFAULT_MS / 1000;

export const domainsApi = {
  listDomains: {
    operationId: 'listDomains',
    method: 'GET',
    path: '/api/domains',
    summary: 'Your domains, newest first: each with whether it is verified and its TXT record',
    access: 'signed-in',
    answers: {
      200: { description: 'The domains', body: PUBLIC_SCHEMAS.domains },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      ...EDGE_ANSWERS,
      403: sessionOnlyEdge,
    },
  },
  addDomain: {
    operationId: 'addDomain',
    method: 'POST',
    path: '/api/domains',
    summary:
      'Adds a domain of yours, unverified: the answer names the TXT record to create at your ' +
      'DNS provider, then verifyDomain checks it. Adding one you already have answers it as ' +
      'it is (200)',
    access: 'signed-in',
    body: addDomainRequestSchema,
    answers: {
      201: { description: 'Added, with the record to create', body: PUBLIC_SCHEMAS.domain },
      200: { description: 'Yours already: as it is', body: PUBLIC_SCHEMAS.domain },
      400: error(`${refusedHost}; or a ${UNDECODABLE}`),
      401: unauthorized,
      409: error(`'${DOMAIN_MESSAGES.taken}' (also while its owner may still undo its delete)`),
      ...EDGE_ANSWERS,
      403: sessionOnlyEdge,
    },
  },
  verifyDomain: {
    operationId: 'verifyDomain',
    method: 'POST',
    path: '/api/domains/{host}/verify',
    summary:
      "Looks the domain's TXT record up (DNS_SERVERS of the links service) and marks it " +
      'verified when it holds the value; a verified domain answers as it is',
    access: 'signed-in',
    params: hostParams,
    answers: {
      200: { description: 'Verified', body: PUBLIC_SCHEMAS.domain },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: notYours,
      422: error(
        'Not verified, the message saying what is missing: ' +
          `'${DOMAIN_MESSAGES.recordMissing('{name}', '{value}')}'; ` +
          `'${DOMAIN_MESSAGES.recordDifferent('{name}', '{value}')}'; ` +
          `'${DOMAIN_MESSAGES.lookupFailed('{name}')}'`,
      ),
      ...EDGE_ANSWERS,
      403: sessionOnlyEdge,
    },
  },
  deleteDomain: {
    operationId: 'deleteDomain',
    method: 'DELETE',
    path: '/api/domains/{host}',
    summary:
      'Removes one of your domains: it leaves your list at once; for ' +
      `${undoSeconds} s (DELETE_UNDO_WINDOW_MS of the links service) restoreDomain brings it ` +
      'back as it was, and until then no one else can add it',
    access: 'signed-in',
    params: hostParams,
    answers: {
      204: { description: 'Removed' },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: notYours,
      ...EDGE_ANSWERS,
      403: sessionOnlyEdge,
    },
  },
  restoreDomain: {
    operationId: 'restoreDomain',
    method: 'POST',
    path: '/api/domains/{host}/restore',
    summary:
      'Undoes the delete of one of your domains within the undo window after deleteDomain ' +
      `(${undoSeconds} s by default): verified or not as it was, with the same record. A ` +
      'domain that is not deleted answers as it is',
    access: 'signed-in',
    params: hostParams,
    answers: {
      200: { description: 'The domain, restored', body: PUBLIC_SCHEMAS.domain },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(
        `'${DOMAIN_MESSAGES.notFound}': unknown, not yours, or deleted longer ago than the window`,
      ),
      ...EDGE_ANSWERS,
      403: sessionOnlyEdge,
    },
  },
} as const satisfies Record<string, PublicRoute>;
