import type { Logger } from 'pino';
import { InternalClient, type InternalResponse } from '@shortener/chassis';
import type { ManagedDataSource } from '@shortener/chassis-postgres';
import type { LinksConfig } from '../config';
import type { LinkCache } from './link-cache.provider';
import { RemovalsService } from './removals.service';

const CODES = ['AbC1234', 'XyZ9876'];

/**
 * The outbox holds CODES, due; `restored` are back in links.links (undone after the outbox was
 * read); what analytics answers to their visits' delete is `answer`.
 */
function removalsWith(answer: InternalResponse, restored: string[] = []) {
  const queries: string[] = [];
  const rows = (codes: string[]) =>
    codes.map((code) => ({ code, original_url: 'https://example.com/', expires_at: new Date() }));
  const database = {
    isConnected: true,
    dataSource: {
      query: (sql: string) => {
        queries.push(sql);
        if (!sql.startsWith('SELECT')) return Promise.resolve([]);
        return Promise.resolve(rows(sql.includes('FROM links.removed_links') ? CODES : restored));
      },
    },
  } as unknown as ManagedDataSource;
  const cache = {
    delete: jest.fn((_code: string) => Promise.resolve()),
    replace: jest.fn((_code: string, _link: unknown) => Promise.resolve()),
  };
  const config = {
    ANALYTICS_URL: 'http://analytics.invalid',
    INTERNAL_API_SECRET: 'unused',
  } as LinksConfig;
  const logger = { warn: jest.fn(), info: jest.fn() } as unknown as Logger;
  const request = jest.spyOn(InternalClient.prototype, 'request').mockResolvedValue(answer);
  const removals = new RemovalsService(database, cache as unknown as LinkCache, config, logger);
  const outboxCleared = () =>
    queries.some((sql) => sql.startsWith('DELETE FROM links.removed_links'));
  return { removals, request, outboxCleared, logger, cache };
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

  it('leaves alone a link restored after the due removals were read: its visits and its cache entry', async () => {
    const [restored, removed] = CODES as [string, string];
    const { removals, request, cache } = removalsWith({ status: 200, body: { deleted: 1 } }, [
      restored,
    ]);
    await removals.settlePending();
    expect(request).toHaveBeenCalledWith('POST', '/internal/visits/delete', {
      identity: undefined,
      requestId: undefined,
      body: { codes: [removed] },
    });
    // Its gone marker, written again by the retry of the first round, is replaced by the link.
    expect(cache.replace).toHaveBeenCalledWith(restored, expect.anything());
    expect(cache.delete.mock.calls.filter(([code]) => code === removed).length).toBeGreaterThan(0);
  });
});
