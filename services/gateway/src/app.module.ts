import { Module, type DynamicModule } from '@nestjs/common';
import type { GatewayAdapters } from './adapters';
import { AnalyticsModule } from './analytics/analytics.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { BackendsModule } from './backends/backends.module';
import { DomainsModule } from './domains/domains.module';
import { EdgeModule } from './edge/edge.module';
import { FrontendModule } from './frontend/frontend.module';
import { LinksModule } from './links/links.module';
import { DocsModule } from './openapi/docs.module';
import { ProxyModule } from './proxy/proxy.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { SessionModule } from './session/session.module';
import { UserModule } from './user/user.module';
import { StatsModule } from './stats/stats.module';
import { VisitorsModule } from './visitors/visitors.module';

@Module({})
export class AppModule {
  static forRoot(adapters: GatewayAdapters): DynamicModule {
    return {
      module: AppModule,
      imports: [
        BackendsModule,
        RateLimitModule.forRoot(adapters.rateLimits.value),
        SessionModule,
        ApiKeysModule.forRoot(adapters.keyRevocations.value),
        EdgeModule,
        DocsModule,
        UserModule,
        LinksModule,
        DomainsModule,
        VisitorsModule,
        StatsModule.forRoot(adapters.liveVisits.value),
        AnalyticsModule,
        ProxyModule,
        FrontendModule,
      ],
    };
  }
}
