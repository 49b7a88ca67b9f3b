import { Global, Module } from '@nestjs/common';
import { InternalClient } from '@shortener/chassis';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import type { GatewayConfig } from '../config';

export const AUTH_CLIENT = Symbol('AUTH_CLIENT');
export const LINKS_CLIENT = Symbol('LINKS_CLIENT');
export const ANALYTICS_CLIENT = Symbol('ANALYTICS_CLIENT');

function client(token: symbol, service: string, url: (config: GatewayConfig) => string) {
  return {
    provide: token,
    inject: [SERVICE_CONFIG],
    useFactory: (config: GatewayConfig) =>
      new InternalClient(service, url(config), config.INTERNAL_API_SECRET),
  };
}

/** Signed clients of the internal APIs behind the gateway. */
@Global()
@Module({
  providers: [
    client(AUTH_CLIENT, 'auth', (config) => config.AUTH_URL),
    client(LINKS_CLIENT, 'links', (config) => config.LINKS_URL),
    client(ANALYTICS_CLIENT, 'analytics', (config) => config.ANALYTICS_URL),
  ],
  exports: [AUTH_CLIENT, LINKS_CLIENT, ANALYTICS_CLIENT],
})
export class BackendsModule {}
