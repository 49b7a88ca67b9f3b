import { z } from 'zod';
import { visitSchema } from './api';

/**
 * The internal HTTP APIs the gateway (and the redirect service) call. Never exposed at the
 * edge; every call carries a signed internal token (see @shortener/chassis internal-auth).
 */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';

/** A link as the links service returns it to the gateway. */
export const internalLinkSchema = z.object({
  urlID: z.string(),
  originalUrl: z.string(),
  createdAt: z.string(),
  expiresAt: z.number(),
});
export type InternalLink = z.infer<typeof internalLinkSchema>;

// links service
// POST   /internal/links            body CreateLinkRequest -> 201 InternalLink | 400/403 {message}
// GET    /internal/links            the caller's non-expired links -> { links: InternalLink[] }
// GET    /internal/links/:code      the caller's link -> InternalLink | 404 {message}
// DELETE /internal/links/:code      the caller's link -> 204 | 404 {message}
// GET    /internal/resolve/:code    any live link, for the redirect service -> ResolvedLink | 404
// Both optional: the links service answers a missing URL itself, and missing days mean 7.
export const createLinkRequestSchema = z.object({
  url: z.unknown().optional(),
  days: z.unknown().optional(),
});
export type CreateLinkRequest = z.infer<typeof createLinkRequestSchema>;

export const linkListSchema = z.object({ links: z.array(internalLinkSchema) });
export type LinkList = z.infer<typeof linkListSchema>;

export const resolvedLinkSchema = z.object({
  url: z.string(),
  expiresAt: z.number(),
});
export type ResolvedLink = z.infer<typeof resolvedLinkSchema>;

// analytics service
// GET  /internal/visits/:code?limit=&cursor=  -> VisitsPage (newest first)
// POST /internal/visit-counts   body { codes }  -> { counts: { [code]: number } }
// POST /internal/visits/delete  body { codes }  -> { deleted: number }
export const VISITS_PAGE_DEFAULT = 50;
export const VISITS_PAGE_MAX = 500;

export const visitsPageSchema = z.object({
  visits: z.array(visitSchema),
  nextCursor: z.string().nullable(),
});
export type VisitsPage = z.infer<typeof visitsPageSchema>;

export const codesRequestSchema = z.object({
  codes: z.array(z.string().max(16)).max(1000),
});
export type CodesRequest = z.infer<typeof codesRequestSchema>;

export const visitCountsSchema = z.object({
  counts: z.record(z.string(), z.number().int().nonnegative()),
});
export type VisitCounts = z.infer<typeof visitCountsSchema>;
