import type { Service } from '@shortener/chassis';
import { connectAdapters, type RedirectAdapters } from './adapters';
import { loadRedirectConfig, type RedirectConfig } from './config';
import { startRedirect } from './server';

/** The redirect service: `/r/{code}` on a plain node:http server (server.ts). */
export const service: Service<RedirectConfig, RedirectAdapters> = {
  name: 'redirect',
  loadConfig: loadRedirectConfig,
  connectAdapters,
  start: startRedirect,
};
