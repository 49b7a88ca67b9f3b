import 'reflect-metadata';
import { BadRequestException, ForbiddenException, type ExecutionContext } from '@nestjs/common';
import {
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { CURSOR_MESSAGE, internalApi, publicApi } from '@shortener/contracts';
import { Input, nestPath, Route, type ContractEntry, type Refusal } from './contract-route';

type Factory = (data: unknown, context: ExecutionContext) => unknown;

/** A handler bound to `entry`, and what @Input() gives it for this request. */
function bound(entry: ContractEntry, refuse?: Refusal) {
  class Probe {
    handler(_input: unknown): void {}
  }
  const descriptor = Object.getOwnPropertyDescriptor(Probe.prototype, 'handler')!;
  Route(entry, refuse)(Probe.prototype, 'handler', descriptor);
  Input()(Probe.prototype, 'handler', 0);
  const handler = descriptor.value as () => void;
  const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, Probe, 'handler') as Record<
    string,
    { factory: Factory }
  >;
  const factory = Object.values(args)[0]!.factory;
  const input = (request: { params?: object; query?: object; body?: unknown }) =>
    factory(undefined, {
      getHandler: () => handler,
      switchToHttp: () => ({ getRequest: () => ({ params: {}, query: {}, ...request }) }),
    } as unknown as ExecutionContext);
  return { handler, input };
}

describe('a handler bound to its contract entry', () => {
  it('is routed by the entry: method, path (without a trailing slash) and success status', () => {
    const shorten = bound(publicApi.shorten).handler;
    expect(Reflect.getMetadata(PATH_METADATA, shorten)).toBe('/api/shorten');
    expect(Reflect.getMetadata(METHOD_METADATA, shorten)).toBe(1); // RequestMethod.POST
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, shorten)).toBe(201);
    expect(nestPath(publicApi.getVisitors)).toBe('/api/visitors/:urlID');
    const remove = bound(internalApi.deleteLink).handler;
    expect(Reflect.getMetadata(PATH_METADATA, remove)).toBe('/internal/links/:code');
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, remove)).toBe(204);
  });

  it('takes numbers from query strings by the schema, and refuses what the schema refuses', () => {
    const { input } = bound(internalApi.linkStats);
    expect(input({ params: { code: 'AbC1234' }, query: { createdAt: '1700000000000' } })).toEqual({
      params: { code: 'AbC1234' },
      query: { createdAt: 1700000000000 },
      body: undefined,
    });
    for (const createdAt of ['yesterday', '-5', '1e3', ['1', '2']]) {
      expect(() => input({ query: { createdAt } })).toThrow(
        new BadRequestException('createdAt must be a time in milliseconds'),
      );
    }
    expect(() => input({ query: { range: '1y' } })).toThrow(
      new BadRequestException('range must be one of 24h, 7d, 30d, all'),
    );
  });

  it('reads more than the largest page as the largest page, and refuses a limit under 1', () => {
    const { input } = bound(internalApi.visitsPage);
    expect(input({ query: { limit: '9999' } })).toMatchObject({ query: { limit: 500 } });
    expect(input({})).toMatchObject({ query: {} });
    for (const limit of ['0', 'abc', '']) {
      expect(() => input({ query: { limit } })).toThrow(
        new BadRequestException('limit must be a whole number from 1 to 500'),
      );
    }
    expect(() => input({ query: { cursor: ['a', 'b'] } })).toThrow(
      new BadRequestException(CURSOR_MESSAGE),
    );
  });

  it("parses the body with the entry's schema, refused as the handler says", () => {
    const refuse = () => new ForbiddenException('no');
    const { input } = bound(internalApi.visitCounts, refuse);
    expect(input({ body: { codes: ['AbC1234'] } })).toMatchObject({ body: { codes: ['AbC1234'] } });
    expect(() => input({ body: { codes: 'AbC1234' } })).toThrow(new ForbiddenException('no'));
    expect(() => input({})).toThrow(new ForbiddenException('no'));
  });

  it('keeps defaults and the first problem of a public query', () => {
    const stats = bound(publicApi.getStats).input;
    expect(stats({ params: { urlID: 'AbC1234' } })).toMatchObject({ query: { range: '7d' } });
    const shorten = bound(publicApi.shorten).input;
    expect(() => shorten({ query: {} })).toThrow(BadRequestException);
  });

  it('answers an entry with no query or body schema with neither', () => {
    expect(
      bound(internalApi.getLink).input({ params: { code: 'AbC1234' }, query: { x: '1' } }),
    ).toMatchObject({
      query: undefined,
      body: undefined,
    });
  });
});
