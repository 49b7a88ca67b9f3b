import { Controller, Get, Module, Post } from '@nestjs/common';
import { publicApi, type PublicRoute } from '@shortener/contracts';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config';
import { SignedInGuard } from '../session/session.guards';
import { controllersOf, routesOf, type NestRoute } from './nest-routes';

const config = loadGatewayConfig({
  INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!',
  REDIS_URL: 'memory://',
});

const withoutTrailingSlash = (path: string) => path.replace(/(.)\/$/, '$1');
const call = (route: { method: string; path: string }) =>
  `${route.method} ${withoutTrailingSlash(route.path)}`;

/** The public routes the gateway's controllers serve: everything under /api. */
function publicRoutes(module = AppModule.forRoot(config)): NestRoute[] {
  return routesOf(controllersOf(module)).filter(
    (route) => route.path === '/api' || route.path.startsWith('/api/'),
  );
}

const contract: readonly PublicRoute[] = Object.values(publicApi);

/** The calls served without a contract entry, and the entries nothing serves. */
function drift(served: readonly NestRoute[]) {
  const described = new Set(contract.map(call));
  const routed = new Set(served.map(call));
  return {
    undescribed: [...routed].filter((route) => !described.has(route)).sort(),
    unserved: [...described].filter((route) => !routed.has(route)).sort(),
  };
}

describe('the public API description against the gateway controllers', () => {
  const served = publicRoutes();
  const entry = (route: NestRoute) => contract.find((one) => call(one) === call(route));

  it('describes every /api route the controllers serve, and no other', () => {
    expect(served.map(call).sort()).toEqual([
      'GET /api/user',
      'GET /api/visitors/{urlID}',
      'POST /api/delete/{urlID}',
      'POST /api/shorten',
    ]);
    expect(drift(served)).toEqual({ undescribed: [], unserved: [] });
  });

  it('would notice a route added to a controller without a contract entry', () => {
    @Controller('api')
    class ExtraController {
      @Get('extra/:id')
      extra(): string {
        return '';
      }

      @Post('user')
      user(): string {
        return '';
      }
    }
    @Module({ controllers: [ExtraController] })
    class ExtraModule {}
    const module = AppModule.forRoot(config);
    const extended = { ...module, imports: [...(module.imports ?? []), ExtraModule] };
    expect(drift(publicRoutes(extended))).toEqual({
      undescribed: ['GET /api/extra/{id}', 'POST /api/user'],
      unserved: [],
    });
  });

  it('documents the status each route answers when it succeeds, as its first 2xx', () => {
    for (const route of served) {
      const documented = Object.keys(entry(route)!.answers)
        .map(Number)
        .filter((status) => status >= 200 && status < 300);
      expect({ route: call(route), success: documented[0] }).toEqual({
        route: call(route),
        success: route.status,
      });
    }
  });

  it('documents 401 exactly where a session is required, and the path parameters', () => {
    for (const route of served) {
      const described = entry(route)!;
      const signedIn = route.guards.includes(SignedInGuard);
      expect({
        route: call(route),
        access: described.access,
        has401: 401 in described.answers,
      }).toEqual({
        route: call(route),
        access: signedIn ? 'signed-in' : 'anyone',
        has401: signedIn,
      });
      const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(Object.keys(described.params?.shape ?? {})).toEqual(inPath);
    }
  });
});
