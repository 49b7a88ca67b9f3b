import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { ReadinessCheck } from '@shortener/chassis';
import { OpsController, READINESS_CHECKS } from '@shortener/chassis-nest';
import { BackendsModule } from './backends/backends.module';
import type { GatewayConfig } from './config';
import { EdgeModule } from './edge/edge.module';
import { FrontendModule } from './frontend/frontend.module';
import { LinksModule } from './links/links.module';
import { DocsModule } from './openapi/docs.module';
import { ProxyModule } from './proxy/proxy.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { SessionModule } from './session/session.module';
import { UserModule } from './user/user.module';
import { VisitorsModule } from './visitors/visitors.module';
import type { GatewayAdapters } from './service';

/** The gateway is ready when Redis and the services behind it are alive. */
function serviceAlive(name: string, baseUrl: string): ReadinessCheck {
  return {
    name,
    check: async () => {
      const response = await fetch(new URL('/healthz', baseUrl), {
        signal: AbortSignal.timeout(1500),
      });
      if (!response.ok) throw new Error(`answered ${response.status}`);
    },
  };
}

function readiness(config: GatewayConfig, adapters: GatewayAdapters): Provider {
  return {
    provide: READINESS_CHECKS,
    useFactory: (): ReadinessCheck[] => [
      ...adapters.rateLimits.checks,
      serviceAlive('auth', config.AUTH_URL),
      serviceAlive('links', config.LINKS_URL),
      serviceAlive('analytics', config.ANALYTICS_URL),
      serviceAlive('redirect', config.REDIRECT_URL),
    ],
  };
}

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, adapters: GatewayAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        BackendsModule,
        RateLimitModule.forRoot(adapters.rateLimits.value),
        SessionModule,
        EdgeModule,
        DocsModule,
        UserModule,
        LinksModule,
        VisitorsModule,
        ProxyModule,
        FrontendModule,
      ],
      controllers: [OpsController],
      providers: [readiness(config, adapters)],
    };
  }
}
