import { Controller, Get, Module, Post } from '@nestjs/common';
import {
  controllersOf,
  routeDrift,
  routeKey,
  routesOf,
  type NestRoute,
} from '@shortener/chassis-nest';
import { publicApi, type PublicRoute } from '@shortener/contracts';
import { inProcess } from '@shortener/chassis';
import { AppModule } from '../app.module';
import { loadGatewayConfig } from '../config';
import { MemoryRateLimiter } from '../rate-limit/memory-rate-limiter';
import { SignedInGuard } from '../session/session.guards';

const config = loadGatewayConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
const application = () =>
  AppModule.forRoot(config, { rateLimits: inProcess(new MemoryRateLimiter()) });

/** The public routes the gateway's controllers serve (everything under /api), OpenAPI style. */
function publicRoutes(module = application()): NestRoute[] {
  return routesOf(controllersOf(module))
    .filter((route) => route.path === '/api' || route.path.startsWith('/api/'))
    .map((route) => ({ ...route, path: route.path.replace(/:(\w+)/g, '{$1}') }));
}

const contract: readonly PublicRoute[] = Object.values(publicApi);

describe('the public API description against the gateway controllers', () => {
  const served = publicRoutes();
  const entry = (route: NestRoute): PublicRoute => {
    const found = contract.find((one) => routeKey(one) === routeKey(route));
    if (!found) throw new Error(`${routeKey(route)} has no entry in publicApi`);
    return found;
  };

  it('describes every /api route the controllers serve, and no other', () => {
    expect(served.map(routeKey).sort()).toEqual([
      'GET /api/user',
      'GET /api/visitors/{urlID}',
      'POST /api/delete/{urlID}',
      'POST /api/shorten',
    ]);
    expect(routeDrift(served, contract)).toEqual({ undescribed: [], unserved: [] });
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
    const module = application();
    const extended = { ...module, imports: [...(module.imports ?? []), ExtraModule] };
    expect(routeDrift(publicRoutes(extended), contract)).toEqual({
      undescribed: ['GET /api/extra/{id}', 'POST /api/user'],
      unserved: [],
    });
  });

  it('documents the status each route answers when it succeeds, as its first 2xx', () => {
    for (const route of served) {
      const documented = Object.keys(entry(route).answers)
        .map(Number)
        .filter((status) => status >= 200 && status < 300);
      expect({ route: routeKey(route), success: documented[0] }).toEqual({
        route: routeKey(route),
        success: route.status,
      });
    }
  });

  it('documents 401 exactly where a session is required, and the path parameters', () => {
    for (const route of served) {
      const described = entry(route);
      const signedIn = route.guards.includes(SignedInGuard);
      expect({
        route: routeKey(route),
        access: described.access,
        has401: 401 in described.answers,
      }).toEqual({
        route: routeKey(route),
        access: signedIn ? 'signed-in' : 'anyone',
        has401: signedIn,
      });
      const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(Object.keys(described.params?.shape ?? {})).toEqual(inPath);
    }
  });
});
