import { BadGatewayException, HttpException, ServiceUnavailableException } from '@nestjs/common';
import { InternalClient, InternalServiceError, type InternalResponse } from '@shortener/chassis';
import { MESSAGES, type SessionUser } from '@shortener/contracts';
import { LinksService } from '../links/links.service';
import { UserService } from '../user/user.service';
import { VisitorsService } from '../visitors/visitors.service';
import { BAD_ANSWER, SERVICE_UNAVAILABLE } from './backend-call';

const USER: SessionUser = { id: 'user-1', fullName: 'Alice', profilePicture: '' };
const CODE = 'AbC1234';
const LINK = {
  urlID: CODE,
  originalUrl: 'https://example.com/',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: 1,
};

type Exchange = (method: string, path: string) => InternalResponse | Error;

/** A real client whose exchanges with `service` are answered by `exchange`. */
function backend(service: string, exchange: Exchange): InternalClient {
  const client = new InternalClient(service, `http://${service}.invalid`, 'unused');
  jest.spyOn(client, 'request').mockImplementation((method, path) => {
    const answer = exchange(method, path);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  });
  return client;
}

const answering =
  (status: number, body?: unknown): Exchange =>
  () => ({ status, body });

/** Shorten and delete never ask analytics. */
const unusedAnalytics = (): InternalClient =>
  backend('analytics', () => new Error('shorten and delete do not count visits'));

/** What the browser would be told: the HTTP exception's status and message. */
async function refusalOf(call: Promise<unknown>): Promise<{ status: number; message: unknown }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof HttpException)) throw error;
    const body = error.getResponse() as { message?: unknown };
    return { status: error.getStatus(), message: body.message };
  }
  throw new Error('answered, not refused');
}

const badAnswer = { status: 502, message: BAD_ANSWER };

describe('gateway calls of the internal APIs', () => {
  describe('shorten', () => {
    const shorten = (links: InternalClient) =>
      new LinksService(links, unusedAnalytics()).shorten({ url: 'https://example.com/' }, USER);

    it('answers the created code', async () => {
      expect(await shorten(backend('links', answering(201, LINK)))).toEqual({
        url: CODE,
        loggedIn: true,
      });
    });

    it("passes a refusal on with the links service's status and message", async () => {
      const links = backend('links', answering(403, { message: 'Only http and https URLs.' }));
      expect(await refusalOf(shorten(links))).toEqual({
        status: 403,
        message: 'Only http and https URLs.',
      });
    });

    it.each([
      ['a created link without its code', 201, { ...LINK, urlID: undefined }],
      ['a refusal without a message', 403, { error: 'Forbidden' }],
      ['a status shorten does not expect', 200, LINK],
    ])('answers 502 to %s', async (_what, status, body) => {
      expect(await refusalOf(shorten(backend('links', answering(status, body))))).toEqual(
        badAnswer,
      );
    });
  });

  describe('delete', () => {
    const remove = (links: InternalClient) =>
      new LinksService(links, unusedAnalytics()).remove(CODE, USER);

    it('answers deleted on a 204 and not found on a 404', async () => {
      expect(await remove(backend('links', answering(204)))).toEqual({ loggedIn: true });
      expect(
        await refusalOf(remove(backend('links', answering(404, { message: 'Url not found' })))),
      ).toEqual({ status: 404, message: MESSAGES.urlNotFound });
    });

    it('answers 502 to a 204 with a body', async () => {
      expect(await refusalOf(remove(backend('links', answering(204, { gone: true }))))).toEqual(
        badAnswer,
      );
    });
  });

  describe('visitors', () => {
    const page = { visits: [], nextCursor: 'next' };

    it("asks analytics only once the link is found to be the caller's", async () => {
      const analytics = backend('analytics', answering(200, page));
      const visitors = new VisitorsService(backend('links', answering(200, LINK)), analytics);
      expect(await visitors.page(CODE, { cursor: 'c' }, USER)).toEqual({
        visits: [],
        nextCursor: 'next',
      });
      expect(analytics.request).toHaveBeenCalledWith(
        'GET',
        `/internal/visits/${CODE}?limit=50&cursor=c`,
        expect.objectContaining({ identity: { userId: USER.id } }),
      );
    });

    it('answers 502, and never asks analytics, when the ownership answer is malformed', async () => {
      const analytics = backend('analytics', answering(200, page));
      const links = backend('links', answering(200, { urlID: CODE }));
      const visitors = new VisitorsService(links, analytics);
      expect(await refusalOf(visitors.page(CODE, {}, USER))).toEqual(badAnswer);
      expect(analytics.request).not.toHaveBeenCalled();
    });

    it('answers 502 to a page whose visits are malformed', async () => {
      const analytics = backend('analytics', answering(200, { visits: [{}], nextCursor: null }));
      const visitors = new VisitorsService(backend('links', answering(200, LINK)), analytics);
      expect(await refusalOf(visitors.page(CODE, {}, USER))).toEqual(badAnswer);
    });
  });

  describe('user data', () => {
    it('answers 502 to visit counts that are not counts', async () => {
      const links = backend('links', answering(200, { links: [LINK] }));
      const analytics = backend('analytics', answering(200, { counts: { [CODE]: -1 } }));
      expect(await refusalOf(new UserService(links, analytics).userData(USER))).toEqual(badAnswer);
    });

    it('answers 502 to a link list that is not one', async () => {
      const links = backend('links', answering(200, [LINK]));
      const analytics = backend('analytics', answering(200, { counts: {} }));
      expect(await refusalOf(new UserService(links, analytics).userData(USER))).toEqual(badAnswer);
    });
  });

  it('answers 503 when a service cannot be reached, 502 when it answers out of contract', async () => {
    const away = backend('links', () => new InternalServiceError('links', 'ECONNREFUSED'));
    const service = new LinksService(away, unusedAnalytics());
    await expect(service.remove(CODE, USER)).rejects.toThrow(ServiceUnavailableException);
    expect(await refusalOf(service.remove(CODE, USER))).toEqual({
      status: 503,
      message: SERVICE_UNAVAILABLE,
    });
    const broken = new LinksService(
      backend('links', answering(500, { message: 'boom' })),
      unusedAnalytics(),
    );
    await expect(broken.remove(CODE, USER)).rejects.toThrow(BadGatewayException);
  });
});
