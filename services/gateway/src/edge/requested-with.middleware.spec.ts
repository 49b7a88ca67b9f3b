import { ForbiddenException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MESSAGES } from '@shortener/contracts';
import { requireRequestedWith } from './requested-with.middleware';

function call(path: string, header?: string): { next: jest.Mock; res: { setHeader: jest.Mock } } {
  const req = {
    path,
    header: (name: string) => (name.toLowerCase() === 'x-requested-with' ? header : undefined),
  } as unknown as Request;
  const res = { setHeader: jest.fn() };
  const next = jest.fn();
  requireRequestedWith(req, res as unknown as Response, next);
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

  it('refuses a wrong value with 403', () => {
    expect(() => call('/api/delete/abcdefg', 'fetch')).toThrow(ForbiddenException);
  });

  it('leaves the documentation, which browsers open by navigation, alone', () => {
    expect(call('/api/docs').next).toHaveBeenCalledWith();
    expect(call('/api/docs/openapi.json').next).toHaveBeenCalledWith();
    expect(() => call('/api/docsx')).toThrow(ForbiddenException);
  });
});
