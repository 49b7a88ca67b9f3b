import { ForbiddenException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MESSAGES } from '@shortener/contracts';
import { NOT_THIS_SITE, requireRequestedWith } from './requested-with.middleware';

const ORIGIN = 'http://localhost:8080';

function call(
  path: string,
  header?: string,
  headers: Record<string, string> = {},
): { next: jest.Mock; res: { setHeader: jest.Mock } } {
  const req = {
    path,
    headers,
    header: (name: string) => (name.toLowerCase() === 'x-requested-with' ? header : undefined),
  } as unknown as Request;
  const res = { setHeader: jest.fn() };
  const next = jest.fn();
  requireRequestedWith(ORIGIN)(req, res as unknown as Response, next);
  return { next, res };
}

describe('requireRequestedWith', () => {
  it('lets a call with X-Requested-With: XMLHttpRequest through, never cached', () => {
    const { next, res } = call('/api/user', 'XMLHttpRequest');
    expect(next).toHaveBeenCalledWith();
    expect(res.setHeader).toHaveBeenCalledWith('cache-control', 'no-store');
  });

  it('accepts the value in any case', () => {
    expect(call('/api/user', 'xmlhttprequest').next).toHaveBeenCalledWith();
  });

  it.each([undefined, ''])(
    'refuses a call without the header (%j) with 403 and the message',
    (value) => {
      expect(() => call('/api/shorten/', value)).toThrow(
        new ForbiddenException(MESSAGES.missingRequestedWith),
      );
    },
  );

  it("lets a call with Authorization through without it: a script's, made with an API key", () => {
    expect(
      call('/api/shorten/', undefined, { authorization: 'Bearer k' }).next,
    ).toHaveBeenCalledWith();
  });

  it('refuses a wrong value with 403', () => {
    expect(() => call('/api/delete/abcdefg', 'fetch')).toThrow(ForbiddenException);
  });

  it('leaves the documentation, which browsers open by navigation, alone', () => {
    expect(call('/api/docs').next).toHaveBeenCalledWith();
    expect(call('/api/docs/openapi.json').next).toHaveBeenCalledWith();
    expect(() => call('/api/docsx')).toThrow(ForbiddenException);
  });

  it('lets the live stream through without the header from our own pages only', () => {
    const live = '/api/stats/AbC1234/live';
    expect(call(live, undefined, { 'sec-fetch-site': 'same-origin' }).next).toHaveBeenCalledWith();
    expect(call(live, undefined, { origin: ORIGIN }).next).toHaveBeenCalledWith();
    const crossSite: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'http://app.localhost:8080' },
    ];
    for (const headers of crossSite) {
      expect(() => call(live, undefined, headers)).toThrow(NOT_THIS_SITE);
    }
    // Only that one path: the stats themselves still need the header.
    expect(() =>
      call('/api/stats/AbC1234', undefined, { 'sec-fetch-site': 'same-origin' }),
    ).toThrow(ForbiddenException);
  });
});
