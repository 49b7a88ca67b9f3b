import type { MiddlewareConsumer, NestModule } from '@nestjs/common';
import {
  checkAlias,
  opsApi,
  publicApi,
  RESERVED_ALIASES,
  SERVER_PATH_SEGMENTS,
  shortLinkApi,
  type PublicRoute,
} from '@shortener/contracts';
import { DocsModule } from '../openapi/docs.module';
import { ProxyModule } from '../proxy/proxy.module';
import { isFrontendPath } from './frontend.middleware';

/** The paths a module's middleware is bound to (its `forRoutes`), without starting it. */
function middlewarePaths(module: NestModule): string[] {
  const paths: string[] = [];
  const consumer = {
    apply: () => consumer,
    exclude: () => consumer,
    forRoutes: (...routes: Array<string | { path: string }>) => {
      for (const route of routes) paths.push(typeof route === 'string' ? route : route.path);
      return consumer;
    },
  };
  module.configure(consumer as unknown as MiddlewareConsumer);
  return paths;
}

const firstSegment = (path: string): string => path.replace(/^\//, '').split(/[/{]/)[0]!;

describe('the paths the gateway serves itself', () => {
  const served = [
    ...(Object.values(publicApi) as PublicRoute[]).map((route) => route.path),
    ...middlewarePaths(new ProxyModule()),
    ...middlewarePaths(new DocsModule()),
    // The redirect fast path, and the chassis's operations routes.
    shortLinkApi.followShortLink.path,
    ...Object.values(opsApi).map((entry) => entry.path),
  ];

  it('each starts with a segment of SERVER_PATH_SEGMENTS, which the page never takes', () => {
    for (const path of served) {
      expect({ path, listed: SERVER_PATH_SEGMENTS.includes(firstSegment(path) as never) }).toEqual({
        path,
        listed: true,
      });
    }
    for (const segment of SERVER_PATH_SEGMENTS) expect(isFrontendPath(`/${segment}`)).toBe(false);
  });

  it('are reserved from aliases, in any letter case', () => {
    for (const path of served) {
      const segment = firstSegment(path);
      expect(RESERVED_ALIASES).toContain(segment);
      expect(checkAlias(segment.toUpperCase())).toMatchObject({ ok: false });
    }
  });
});
