import { Injectable, type NestMiddleware } from '@nestjs/common';
import { API_DOCS_PATH } from '@shortener/contracts';
import { Router, type NextFunction, type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { buildOpenApiDocument } from './openapi.document';

const OPENAPI_JSON_PATH = `${API_DOCS_PATH}/openapi.json`;

/** The API description as JSON, and Swagger UI to read and try it. */
@Injectable()
export class DocsMiddleware implements NestMiddleware {
  private readonly router = Router();

  constructor() {
    const document = buildOpenApiDocument();
    this.router.get(OPENAPI_JSON_PATH, (_req, res) => {
      res.json(document);
    });
    // Swagger UI loads its files relative to the page, so the page must end with '/'.
    this.router.get(API_DOCS_PATH, (req, res, next) => {
      if (req.path === API_DOCS_PATH) res.redirect(301, `${API_DOCS_PATH}/`);
      else next();
    });
    this.router.use(
      API_DOCS_PATH,
      swaggerUi.serveFiles(undefined, { swaggerOptions: { url: OPENAPI_JSON_PATH } }),
      swaggerUi.setup(undefined, {
        customSiteTitle: 'URL shortener API',
        swaggerOptions: { url: OPENAPI_JSON_PATH, validatorUrl: null },
      }),
    );
  }

  use(req: Request, res: Response, next: NextFunction): void {
    this.router(req, res, next);
  }
}
