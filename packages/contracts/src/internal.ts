import { z } from 'zod';
import { visitSchema } from './api';

/**
 * The bodies of the internal HTTP APIs the gateway (and the redirect and links services)
 * call; which endpoint takes and answers which is `internalApi` (internal-api.ts). Never
 * exposed at the edge; every call carries a signed internal token (see @shortener/chassis
 * internal-auth).
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
