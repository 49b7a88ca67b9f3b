import { z } from 'zod';
import { MESSAGES, REQUESTED_WITH_HEADER } from '../api';
import {
  BULK_BODY_LIMIT,
  BULK_LINKS_MAX,
  BULK_MESSAGES,
  bulkLinksRequestSchema,
  editLinkBodySchema,
  LINKS_QUERY_MESSAGES,
  linksQuerySchema,
  shortenQuerySchema,
} from '../api-requests';
import { LINKS_PAGE_SIZE } from '../internal';
import {
  ALIAS_MESSAGES,
  DELETE_UNDO_OFFER_MS,
  DELETE_UNDO_WINDOW_DEFAULT_MS,
  EDIT_LINK_MESSAGES,
  MAX_URL_LENGTH,
  TARGET_URL_MESSAGES,
} from '../links';
import { LINK_RULES_MESSAGES } from '../link-rules';
import {
  EDGE_ANSWERS,
  error,
  nextLinksHeader,
  retryAfter,
  UNDECODABLE,
  unauthorized,
  urlIdParams,
} from './answers';
import { PUBLIC_SCHEMAS, type PublicRoute } from './types';

/** What a domain or a rule refused answers (400), on POST /api/links items and PATCH. */
const RULE_REFUSALS =
  [
    `'${LINK_RULES_MESSAGES.domainUnknown('{host}')}' (also another account's domain)`,
    `'${LINK_RULES_MESSAGES.domainUnverified('{host}')}'`,
    `'${LINK_RULES_MESSAGES.url('ios', '{url message}')}' (also android and geo.{country})`,
    `'${LINK_RULES_MESSAGES.country('{code}')}'`,
    `'${LINK_RULES_MESSAGES.geo}'`,
    `'${LINK_RULES_MESSAGES.password}'`,
    `'${LINK_RULES_MESSAGES.maxVisits}'`,
  ].join('; ') + '. A password is never answered: answers carry hasPassword';

/** Shortening and managing links. */
export const linksApi = {
  listLinks: {
    operationId: 'listLinks',
    method: 'GET',
    path: '/api/links',
    summary:
      `A page of your live links (up to ${LINKS_PAGE_SIZE}) with visit counts, newest first, ` +
      'or the soonest to expire first (sort=expiring), or the most visited first ' +
      '(sort=visits); with q, only those whose destination or code contains it (any letter ' +
      'case). The first page newest first without q holds the same links as /api/user.',
    access: 'signed-in',
    apiKeyScope: 'links:read',
    query: linksQuerySchema,
    answers: {
      200: { description: 'Links', body: PUBLIC_SCHEMAS.links, headers: nextLinksHeader },
      400: error(
        `'${LINKS_QUERY_MESSAGES.cursor}' (not a cursor this call gave, or one of another ` +
          `sort), '${LINKS_QUERY_MESSAGES.oneCursor}', '${LINKS_QUERY_MESSAGES.search}', ` +
          `'${LINKS_QUERY_MESSAGES.searchControl}' (NUL, a line break, ...), ` +
          `'${LINKS_QUERY_MESSAGES.sort}', or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      ...EDGE_ANSWERS,
    },
  },
  shorten: {
    operationId: 'shorten',
    method: 'POST',
    path: '/api/shorten/',
    summary: 'Shortens a URL; signed in or not (anonymous links expire after 7 days)',
    access: 'anyone',
    apiKeyScope: 'links:write',
    query: shortenQuerySchema,
    answers: {
      201: { description: 'The short code', body: PUBLIC_SCHEMAS.shortenResponse },
      400: error(
        `No url, more than one, or one that is not an absolute URL (input the web page ` +
          `never sends), more than one alias ('${ALIAS_MESSAGES.oneOnly}'), or a ${UNDECODABLE}`,
      ),
      403: error(
        // The page shows a 403's message and reads anything else as 'Server error'
        // (SPEC section 8), so every refusal a user can meet says why with a 403.
        'Refused, with a message the page shows: ' +
          [
            `'${TARGET_URL_MESSAGES.scheme}'`,
            `'${TARGET_URL_MESSAGES.ownLinks}' (this service's hosts, and this machine: ` +
              'localhost names, and loopback addresses in any spelling, also inside a wildcard ' +
              'DNS name such as 127.0.0.1.nip.io; names are not resolved, so another name ' +
              'that resolves to this machine is not caught)',
            `'${TARGET_URL_MESSAGES.tooLong}'`,
            `'${TARGET_URL_MESSAGES.credentials}'`,
            `'${TARGET_URL_MESSAGES.spaces}'`,
            `'${MESSAGES.loginForExpiry}' (anonymous, days > 7; answered first when an ` +
              'anonymous call also gives an alias)',
            `'${ALIAS_MESSAGES.loginRequired}' (anonymous, with an alias)`,
            `'${ALIAS_MESSAGES.format}'`,
            `'${ALIAS_MESSAGES.reserved}' (the app's own paths)`,
            "'Too many links shortened: please wait {n} seconds...' (the shorten rate " +
              'limit, per user or per address for anonymous callers; with Retry-After)',
          ].join('; ') +
          `. Also ${REQUESTED_WITH_HEADER} missing`,
        retryAfter('Seconds to wait, when the shorten rate limit refused'),
      ),
      409: error(
        `The alias is taken: '${ALIAS_MESSAGES.taken}' (by a link, in any letter case), or ` +
          `'${ALIAS_MESSAGES.recentlyDeleted}' (a deleted link's code, kept from reuse so no ` +
          'one inherits its visits or cached redirect)',
      ),
      413: EDGE_ANSWERS[413],
      415: EDGE_ANSWERS[415],
      429: error(
        'Too many requests from this address (API_RATE_LIMIT); with an API key, see below',
        retryAfter('Seconds to wait'),
      ),
      431: error(
        `The request's head is over 16 KB (answered before any route). A URL ` +
          `of ${MAX_URL_LENGTH} characters fits, unless most of them are outside ASCII: ` +
          'percent-encoded in the query, such a URL can take up to 18 KB. Send it in the body ' +
          'of POST /api/links instead',
      ),
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  // Issue 28, custom back-halves: shorten many links in one call.
  createLinks: {
    operationId: 'createLinks',
    method: 'POST',
    path: '/api/links',
    summary:
      `Shortens up to ${BULK_LINKS_MAX} URLs at once, each with shorten's rules, and answers ` +
      'each one: its status and short code, or its status and message. Each link counts ' +
      'against the shorten rate limit; those past it are answered 429. A link may live on ' +
      'one of your verified domains (domain; its alias is its back-half there, unique per ' +
      'domain) and carry rules (ios, android, geo, password, maxVisits), each checked and ' +
      `refused (400) with a message naming the field: ${RULE_REFUSALS}`,
    access: 'signed-in',
    apiKeyScope: 'links:write',
    body: bulkLinksRequestSchema,
    bodyLimit: BULK_BODY_LIMIT,
    answers: {
      200: {
        description:
          'Each link answered in the order given: {status: 201, url: code} when created ' +
          '(with domain and shortUrl for a link on a domain), ' +
          '{status, message} with the status and message shorten would answer otherwise ' +
          '(400, 403, 409, or 429 past the rate limit)',
        body: PUBLIC_SCHEMAS.bulkLinks,
        headers: {
          'Retry-After': {
            description: 'Seconds to wait, when the rate limit refused some of the links',
            schema: z.number().int(),
          },
        },
      },
      400: error(
        `Nothing created: '${BULK_MESSAGES.notArray}', '${BULK_MESSAGES.tooMany}', ` +
          `'${BULK_MESSAGES.notObject}', a body that is not JSON, or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      403: EDGE_ANSWERS[403],
      413: error('A request body over 256 KB: nothing created'),
      415: EDGE_ANSWERS[415],
      429: error(
        'Nothing created: too many requests, or no link left within the shorten rate limit',
        retryAfter('Seconds to wait'),
      ),
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  deleteLink: {
    operationId: 'deleteLink',
    method: 'POST',
    path: '/api/delete/{urlID}',
    summary:
      'Deletes one of your links: it stops redirecting at once and leaves your list; for ' +
      `${DELETE_UNDO_WINDOW_DEFAULT_MS / 1000} s (DELETE_UNDO_WINDOW_MS of the links service) ` +
      'restoreLink brings it back whole, then it is purged with its visits',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    params: urlIdParams,
    answers: {
      200: { description: 'Deleted', body: PUBLIC_SCHEMAS.deleteResponse },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}': unknown, expired or not yours`),
      ...EDGE_ANSWERS,
    },
  },
  editLink: {
    operationId: 'editLink',
    method: 'PATCH',
    path: '/api/links/{urlID}',
    summary:
      "Changes one of your links' destination, its expiry (days from now), its domain or its " +
      'rules (null removes one); the code, its visits and its stats stay. Moved to a domain, ' +
      'it keeps its back-half there (its code, when it had none); moved back (domain: null), ' +
      'it is served at /r/{urlID}. Every redirect serves the change within a second of the ' +
      'answer.',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    params: urlIdParams,
    body: editLinkBodySchema,
    answers: {
      200: { description: 'The link as it is now', body: PUBLIC_SCHEMAS.shortLink },
      400: error(
        'Nothing changed: ' +
          [
            `'${EDIT_LINK_MESSAGES.notAnObject}' (no JSON object; JSON that does not parse: ` +
              "'Request body could not be read')",
            `'${EDIT_LINK_MESSAGES.nothingToChange}'`,
            `'${EDIT_LINK_MESSAGES.unknownField}'`,
            `'${EDIT_LINK_MESSAGES.days}'`,
            `'${TARGET_URL_MESSAGES.notAbsolute}'`,
            `'${TARGET_URL_MESSAGES.noHost}'`,
            RULE_REFUSALS,
          ].join('; '),
      ),
      401: unauthorized,
      403: error(
        "Nothing changed: the URL is refused by shorten's rules: " +
          [
            `'${TARGET_URL_MESSAGES.scheme}'`,
            `'${TARGET_URL_MESSAGES.ownLinks}'`,
            `'${TARGET_URL_MESSAGES.tooLong}'`,
            `'${TARGET_URL_MESSAGES.credentials}'`,
            `'${TARGET_URL_MESSAGES.spaces}'`,
          ].join('; ') +
          `. Also ${REQUESTED_WITH_HEADER} missing`,
      ),
      404: error(`'${MESSAGES.urlNotFound}': unknown, expired, deleted or not yours`),
      409: error(
        `Nothing changed: moved to a domain where its back-half is taken: '${ALIAS_MESSAGES.taken}'`,
      ),
      413: EDGE_ANSWERS[413],
      415: EDGE_ANSWERS[415],
      429: EDGE_ANSWERS[429],
      502: EDGE_ANSWERS[502],
      503: EDGE_ANSWERS[503],
    },
  },
  restoreLink: {
    operationId: 'restoreLink',
    method: 'POST',
    path: '/api/links/{urlID}/restore',
    summary:
      'Undoes the delete of one of your links, within the undo window after deleteLink ' +
      `(${DELETE_UNDO_WINDOW_DEFAULT_MS / 1000} s by default; the web app offers Undo for ` +
      `${DELETE_UNDO_OFFER_MS / 1000} s): the same code, destination, expiry, visits and stats, ` +
      'redirecting again everywhere. A link that is not deleted answers as it is.',
    access: 'signed-in',
    apiKeyScope: 'links:write',
    params: urlIdParams,
    answers: {
      200: { description: 'The link, restored', body: PUBLIC_SCHEMAS.shortLink },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      404: error(
        `'${MESSAGES.urlNotFound}': unknown, not yours, deleted longer ago than the window, ` +
          'or expired (a link whose expiry passed while it was deleted stays deleted)',
      ),
      ...EDGE_ANSWERS,
    },
  },
} as const satisfies Record<string, PublicRoute>;
