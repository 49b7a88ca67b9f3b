import { LINKS_PAGE_SIZE } from '../internal';
import { EDGE_ANSWERS, error, nextLinksHeader, UNDECODABLE, unauthorized } from './answers';
import { PUBLIC_SCHEMAS, type PublicRoute } from './types';

/** The signed-in user. */
export const userApi = {
  getUser: {
    operationId: 'getUser',
    method: 'GET',
    path: '/api/user',
    summary:
      "The signed-in user's name, picture and newest live links (up to " +
      `${LINKS_PAGE_SIZE}) with visit counts; GET /api/links pages through the rest`,
    access: 'signed-in',
    apiKeyScope: 'links:read',
    answers: {
      200: { description: 'User data', body: PUBLIC_SCHEMAS.userData, headers: nextLinksHeader },
      400: error(`A ${UNDECODABLE}`),
      401: unauthorized,
      ...EDGE_ANSWERS,
    },
  },
} as const satisfies Record<string, PublicRoute>;
