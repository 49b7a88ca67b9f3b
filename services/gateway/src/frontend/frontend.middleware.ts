import path from 'node:path';
import compression from 'compression';
import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { SERVICE_CONFIG } from '@shortener/chassis-nest';
import {
  LOGGED_IN_COOKIE,
  SERVER_PATH_SEGMENTS,
  webAppPage,
  webAppPageVaries,
} from '@shortener/contracts';
import type { GatewayConfig } from '../config';

/** Paths that belong to the API, the services and operations, never to the page. */
const NOT_FRONTEND = SERVER_PATH_SEGMENTS.map((segment) => `/${segment}`);

export function isFrontendPath(requestPath: string): boolean {
  return !NOT_FRONTEND.some(
    (prefix) => requestPath === prefix || requestPath.startsWith(`${prefix}/`),
  );
}

const NOT_BUILT = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Frontend not built</title></head>
  <body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto">
    <h1>The frontend is not built yet</h1>
    <p>The API is up. Build the page with <code>npm run build --workspace frontend</code>
    (or point FRONTEND_DIR at a built frontend) and reload.</p>
  </body>
</html>
`;

/**
 * The HTML for a page path (webAppPage): at `/` the home page prerendered for the visitor, and
 * at the profile pages their frame for a signed-in one (by the page's own indicator, the
 * `loggedIn` cookie), so that they paint before their script arrives; elsewhere the app's
 * empty page, whose router renders the page in the browser.
 */
function pageFor(requestPath: string, cookies: Record<string, unknown> | undefined): string {
  return webAppPage(requestPath, cookies?.[LOGGED_IN_COOKIE] === 'true');
}

/**
 * The single-page app on the same origin: its files (hashed assets cached for good), and its
 * HTML for every other page path (pageFor), so that the router in the page decides; compressed
 * (brotli or gzip) for browsers that take it, as the Ingress's nginx does in Kubernetes. Only
 * the page: API answers and the live stream are left alone.
 */
@Injectable()
export class FrontendMiddleware implements NestMiddleware {
  private readonly files: RequestHandler;
  private readonly dir: string;
  private readonly compress = compression();

  constructor(@Inject(SERVICE_CONFIG) config: GatewayConfig) {
    const dir = path.resolve(config.FRONTEND_DIR);
    this.dir = dir;
    this.files = express.static(dir, {
      index: false,
      fallthrough: true,
      setHeaders: (res, file) => {
        const hashed = path.relative(dir, file).startsWith(`assets${path.sep}`);
        res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !isFrontendPath(req.path)) {
      return next();
    }
    this.compress(req, res, () => this.serve(req, res, next));
  }

  private serve(req: Request, res: Response, next: NextFunction): void {
    this.files(req, res, (error?: unknown) => {
      if (error) return next(error);
      // A missing script or stylesheet is a 404, not the page in its place.
      if (req.path.startsWith('/assets/')) return next();
      // The home and profile pages differ by the sign-in cookie: a cache keeps one copy each.
      if (webAppPageVaries(req.path)) res.vary('Cookie');
      const page = path.join(this.dir, pageFor(req.path, req.cookies as Record<string, unknown>));
      res.sendFile(page, { headers: { 'cache-control': 'no-cache' } }, (sendError) => {
        if (!sendError || res.headersSent) return;
        // Not built yet (or being rebuilt): say so instead of failing.
        res.status(503).type('html').setHeader('cache-control', 'no-store').send(NOT_BUILT);
      });
    });
  }
}
