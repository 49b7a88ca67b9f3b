import type { Logger } from 'pino';
import { InternalClient, type InternalResponse } from '@shortener/chassis';
import type { ManagedDataSource } from '@shortener/chassis-postgres';
import type { LinksConfig } from '../config';
import type { LinkCache } from './link-cache.provider';
import { RemovalsService } from './removals.service';

const CODES = ['AbC1234', 'XyZ9876'];

/** The outbox holds CODES; what analytics answers to their visits' delete is `answer`. */
function removalsWith(answer: InternalResponse) {
  const queries: string[] = [];
  const database = {
    isConnected: true,
    dataSource: {
      query: (sql: string) => {
        queries.push(sql);
        return Promise.resolve(sql.startsWith('SELECT') ? CODES.map((code) => ({ code })) : []);
      },
    },
  } as unknown as ManagedDataSource;
  const cache = { delete: () => Promise.resolve() } as unknown as LinkCache;
  const config = {
    ANALYTICS_URL: 'http://analytics.invalid',
    INTERNAL_API_SECRET: 'unused',
  } as LinksConfig;
  const logger = { warn: jest.fn(), info: jest.fn() } as unknown as Logger;
  const request = jest.spyOn(InternalClient.prototype, 'request').mockResolvedValue(answer);
  const removals = new RemovalsService(database, cache, config, logger);
  const outboxCleared = () =>
    queries.some((sql) => sql.startsWith('DELETE FROM links.removed_links'));
  return { removals, request, outboxCleared, logger };
}

describe('RemovalsService, deleting the visits of removed links', () => {
  afterEach(() => jest.restoreAllMocks());

  it('clears the outbox once analytics confirms the delete', async () => {
    const { removals, request, outboxCleared } = removalsWith({
      status: 200,
      body: { deleted: 3 },
    });
    await removals.settlePending();
    expect(request).toHaveBeenCalledWith('POST', '/internal/visits/delete', {
      identity: undefined,
      requestId: undefined,
      body: { codes: CODES },
    });
    expect(outboxCleared()).toBe(true);
  });

  it.each([
    ['an answer without the count', { status: 200, body: {} }],
    ['a count that is not one', { status: 200, body: { deleted: 'all' } }],
    ['another success status', { status: 202, body: { deleted: 3 } }],
  ])('keeps the codes in the outbox on %s, to retry', async (_what, answer) => {
    const { removals, outboxCleared, logger } = removalsWith(answer);
    await removals.settlePending();
    expect(outboxCleared()).toBe(false);
    expect(logger.warn).toHaveBeenCalled();
  });
});
