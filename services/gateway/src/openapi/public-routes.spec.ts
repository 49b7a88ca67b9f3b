import { GUARDS_METADATA } from '@nestjs/common/constants';
import { controllersOf, handlersAgainst } from '@shortener/chassis-nest';
import { publicApi, type PublicRoute } from '@shortener/contracts';
import { inProcess } from '@shortener/chassis';
import { AppModule } from '../app.module';
import { InProcessKeyRevocations } from '../api-keys/key-revocations';
import { memoryRateLimiters } from '../rate-limit/memory-rate-limiters';
import { OptionalSessionGuard, SignedInGuard } from '../session/session.guards';
import { ApiRoute } from '../edge/api-route.decorator';
import { ApiKeyGuard } from '../api-keys/api-key.guard';

const application = () =>
  AppModule.forRoot({
    rateLimits: inProcess(memoryRateLimiters),
    liveVisits: inProcess({ subscribe: () => () => undefined }),
    keyRevocations: inProcess(new InProcessKeyRevocations()),
  });

const contract: readonly PublicRoute[] = Object.values(publicApi);

describe('the public API against the gateway handlers', () => {
  it('has exactly one handler bound to each publicApi entry, and none to another entry', () => {
    expect(controllersOf(application()).length).toBeGreaterThan(0);
    expect(handlersAgainst(application(), contract)).toEqual({
      unserved: [],
      servedTwice: [],
      unlisted: [],
    });
  });

  it('requires a session (401) exactly where the entry documents it, and takes keys first', () => {
    for (const entry of contract) {
      class Probe {
        handler(): void {}
      }
      const descriptor = Object.getOwnPropertyDescriptor(Probe.prototype, 'handler')!;
      ApiRoute(entry)(Probe.prototype, 'handler', descriptor);
      const guards = Reflect.getMetadata(GUARDS_METADATA, descriptor.value as object) as unknown[];
      expect({ route: entry.operationId, has401: 401 in entry.answers, guards }).toEqual({
        route: entry.operationId,
        has401: entry.access === 'signed-in',
        guards: [ApiKeyGuard, entry.access === 'signed-in' ? SignedInGuard : OptionalSessionGuard],
      });
    }
  });

  it('describes the parameters each path names', () => {
    for (const entry of contract) {
      const inPath = [...entry.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect({ route: entry.operationId, params: Object.keys(entry.params?.shape ?? {}) }).toEqual({
        route: entry.operationId,
        params: inPath,
      });
    }
  });
});
