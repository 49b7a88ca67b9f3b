import { z } from 'zod';
import { MESSAGES, NEXT_CURSOR_HEADER } from '../api';
import { CURSOR_MESSAGE, LINKS_QUERY_MESSAGES } from '../api-requests';
import { LIVE_END_REASONS, LIVE_EVENTS, STATS_RANGES, VISITS_CSV_COLUMNS } from '../stats';
import {
  STATS_FILTER_MESSAGES,
  statsFiltersSchema,
  statsQuerySchema,
  visitorsQuerySchema,
} from '../stats-queries';
import {
  EDGE_ANSWERS,
  error,
  retryAfter,
  sessionOnly,
  UNDECODABLE,
  unauthorized,
  urlIdParams,
} from './answers';
import { PUBLIC_SCHEMAS, type PublicRoute } from './types';

/** What a live visit stream answers (a link's, the account's): its events and refusals. */
export const LIVE_STREAM_ANSWERS = {
  200: {
    description: 'The event stream',
    streams: 'text/event-stream',
    events: {
      [LIVE_EVENTS.visit]: PUBLIC_SCHEMAS.liveVisit,
      [LIVE_EVENTS.refetch]: z.object({}),
      [LIVE_EVENTS.end]: z.object({ reason: z.enum(Object.values(LIVE_END_REASONS)) }),
    },
  },
  400: error(`A ${UNDECODABLE}`),
  401: unauthorized,
  403: sessionOnly('A request from another site'),
  429: error(
    'Too many requests, or too many live streams open: of this user, or on the server ' +
      '(both limits set by the operator; close another stream, or try again later)',
    retryAfter('Seconds to wait, when the rate limit refused'),
  ),
  502: EDGE_ANSWERS[502],
  503: EDGE_ANSWERS[503],
  413: EDGE_ANSWERS[413],
  415: EDGE_ANSWERS[415],
} as const;

/** The refusals of the filters, as a 400's description lists them. */
const FILTER_REFUSALS = Object.values(STATS_FILTER_MESSAGES)
  .map((message) => `'${message}'`)
  .join(', ');

/** A link's visits and statistics. */
export const statsApi = {
  getVisitors: {
    operationId: 'getVisitors',
    method: 'GET',
    path: '/api/visitors/{urlID}',
    summary: "One page of a link's visits, newest first; with filters, only the visits they match",
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    params: urlIdParams,
    query: visitorsQuerySchema,
    answers: {
      200: {
        description: 'Visits',
        body: PUBLIC_SCHEMAS.visitors,
        headers: {
          [NEXT_CURSOR_HEADER]: {
            description: 'Present when there are more: pass it as ?cursor= for the next page',
            schema: z.string(),
          },
        },
      },
      400: error(
        `'${CURSOR_MESSAGE}', '${LINKS_QUERY_MESSAGES.oneCursor}', ${FILTER_REFUSALS}, or a ` +
          UNDECODABLE,
      ),
      401: unauthorized,
      404: error(
        `'${MESSAGES.noVisitors}' (no visits yet, or none the filters match), or ` +
          `'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`,
      ),
      ...EDGE_ANSWERS,
    },
  },
  getStats: {
    operationId: 'getStats',
    method: 'GET',
    path: '/api/stats/{urlID}',
    summary:
      "A link's statistics over a range: visits over time (people and bots apart), unique " +
      'visitors, and the top browsers, systems, devices, referrers and countries; with ' +
      'filters, every number (the previous period too) counts only the visits they match',
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    params: urlIdParams,
    query: statsQuerySchema,
    answers: {
      200: { description: 'Statistics', body: PUBLIC_SCHEMAS.linkStats },
      400: error(
        `range is not one of ${STATS_RANGES.join(', ')}, ${FILTER_REFUSALS}, or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`),
      ...EDGE_ANSWERS,
    },
  },
  getLiveVisits: {
    operationId: 'getLiveVisits',
    method: 'GET',
    path: '/api/stats/{urlID}/live',
    summary:
      "A link's visits as they are stored, as Server-Sent Events (EventSource): an event " +
      `\`${LIVE_EVENTS.visit}\` per stored visit (data: LiveVisit), a comment every 15 s, and an ` +
      `event \`${LIVE_EVENTS.end}\` (data: {reason}) when the session ends ` +
      `('${LIVE_END_REASONS.sessionEnded}'), the link is deleted ` +
      `('${LIVE_END_REASONS.linkDeleted}') or the server stops ` +
      `('${LIVE_END_REASONS.serverStopping}': reconnect, as EventSource does by itself). ` +
      'A client that does not read as fast as visits come ' +
      `is not sent the visits its connection cannot take: once it has caught up, an event ` +
      `\`${LIVE_EVENTS.refetch}\` says to fetch the stats and visitors again; one that reads ` +
      'nothing for a heartbeat is disconnected. Not X-Requested-With (EventSource cannot send ' +
      'it): a request another site makes (Sec-Fetch-Site or Origin) is refused with 403.',
    access: 'signed-in',
    csrf: 'same-origin',
    params: urlIdParams,
    answers: {
      ...LIVE_STREAM_ANSWERS,
      404: error(`'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`),
    },
  },
  getVisitsCsv: {
    operationId: 'getVisitsCsv',
    method: 'GET',
    path: '/api/stats/{urlID}/visits.csv',
    summary:
      `Every visit of a link as CSV (RFC 4180), oldest first: ${VISITS_CSV_COLUMNS.join(',')}; ` +
      'time in ISO 8601 UTC; a cell starting with = + - or @ starts with an apostrophe; ' +
      'with filters, only the visits they match',
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    params: urlIdParams,
    query: statsFiltersSchema,
    answers: {
      200: { description: 'The visits, streamed', streams: 'text/csv' },
      400: error(`${FILTER_REFUSALS}, or a ${UNDECODABLE}`),
      401: unauthorized,
      404: error(`'${MESSAGES.urlNotFound}' (unknown, expired or not yours)`),
      ...EDGE_ANSWERS,
    },
  },
} as const satisfies Record<string, PublicRoute>;
