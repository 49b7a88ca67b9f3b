import {
  ACCOUNT_STATS_MESSAGES,
  ACCOUNT_VISITS_CSV_COLUMNS,
  accountStatsQuerySchema,
} from '../account-stats';
import { LIVE_END_REASONS, LIVE_EVENTS, STATS_RANGES } from '../stats';
import { STATS_FILTER_MESSAGES } from '../stats-queries';
import { EDGE_ANSWERS, error, UNDECODABLE, unauthorized } from './answers';
import { LIVE_STREAM_ANSWERS } from './stats';
import { PUBLIC_SCHEMAS, type PublicRoute } from './types';

/** Every refusal of the query, as the 400's description lists them. */
const REFUSALS = [...Object.values(STATS_FILTER_MESSAGES), ...Object.values(ACCOUNT_STATS_MESSAGES)]
  .map((message) => `'${message}'`)
  .join(', ');

/** The statistics of all the caller's links together. */
export const analyticsApi = {
  getAnalytics: {
    operationId: 'getAnalytics',
    method: 'GET',
    path: '/api/analytics',
    summary:
      "The statistics of all the caller's links together over a range (or from/to): a link's " +
      'statistics (visits over time, people and bots, unique visitors, the top browsers, ' +
      'systems, devices, referrers and countries, the previous period), plus the most visited ' +
      'links and the top utm_source, utm_medium and utm_campaign; with filters (all must ' +
      'hold), every number counts only the visits they match. Deleted links count nothing.',
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    query: accountStatsQuerySchema,
    answers: {
      200: { description: 'Statistics', body: PUBLIC_SCHEMAS.accountStats },
      400: error(
        `range is not one of ${STATS_RANGES.join(', ')}, ${REFUSALS}, or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      ...EDGE_ANSWERS,
    },
  },
  getAnalyticsCsv: {
    operationId: 'getAnalyticsCsv',
    method: 'GET',
    path: '/api/analytics/visits.csv',
    summary:
      "Every visit of the caller's links in the range (or from/to) as CSV (RFC 4180), oldest " +
      `first: ${ACCOUNT_VISITS_CSV_COLUMNS.join(',')}; as a link's export otherwise (time in ` +
      'ISO 8601 UTC, a cell starting with = + - or @ starts with an apostrophe); with filters, ' +
      'only the visits they match',
    access: 'signed-in',
    apiKeyScope: 'stats:read',
    query: accountStatsQuerySchema,
    answers: {
      200: { description: 'The visits, streamed', streams: 'text/csv' },
      400: error(
        `range is not one of ${STATS_RANGES.join(', ')}, ${REFUSALS}, or a ${UNDECODABLE}`,
      ),
      401: unauthorized,
      ...EDGE_ANSWERS,
    },
  },
  getAnalyticsLive: {
    operationId: 'getAnalyticsLive',
    method: 'GET',
    path: '/api/analytics/live',
    summary:
      "The visits of all the caller's links as they are stored, as Server-Sent Events " +
      `(EventSource): an event \`${LIVE_EVENTS.visit}\` per stored visit (data: LiveVisit), so a ` +
      "page of the analytics counts again; otherwise as a link's live visits: a comment every " +
      `15 s, \`${LIVE_EVENTS.refetch}\` once a client that fell behind has caught up, and ` +
      `\`${LIVE_EVENTS.end}\` (data: {reason}) when the session ends ` +
      `('${LIVE_END_REASONS.sessionEnded}') or the server stops ` +
      `('${LIVE_END_REASONS.serverStopping}': reconnect). Not X-Requested-With (EventSource ` +
      'cannot send it): a request another site makes is refused with 403.',
    access: 'signed-in',
    csrf: 'same-origin',
    answers: LIVE_STREAM_ANSWERS,
  },
} as const satisfies Record<string, PublicRoute>;
