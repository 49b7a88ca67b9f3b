import { z } from 'zod';
import { MAX_URL_LENGTH, SHORT_CODE_PATTERN, TARGET_URL_MESSAGES } from './links';

/**
 * What the public API accepts (SPEC.md section 7), as the gateway validates it and its
 * OpenAPI description shows it. The messages are the ones the links service gives for the
 * same mistakes, so a user reads the same words whichever side refuses.
 */
export const shortenQuerySchema = z.object({
  url: z
    .string({
      error: (issue) =>
        issue.input === undefined ? TARGET_URL_MESSAGES.required : TARGET_URL_MESSAGES.oneOnly,
    })
    .min(1, { error: TARGET_URL_MESSAGES.required })
    .max(MAX_URL_LENGTH, { error: TARGET_URL_MESSAGES.tooLong })
    .describe('The absolute http or https URL to shorten.'),
  days: z
    .string()
    .max(8)
    .optional()
    // Anything that is not one of the offered choices means the default, never an error.
    .catch(undefined)
    .describe('Days until the link expires: 7, 15, 30 or 60. Anything else means 7.'),
});
export type ShortenQuery = z.infer<typeof shortenQuerySchema>;

export const urlIdSchema = z
  .string()
  .regex(SHORT_CODE_PATTERN)
  .describe('The short code: 7 characters of 0-9, A-Z, a-z.');

/** Cursors are opaque to the gateway: printable ASCII without spaces, bounded in length. */
export const VISITS_CURSOR_PATTERN = /^[\x21-\x7e]{1,200}$/;

export const visitorsQuerySchema = z.object({
  cursor: z
    .string({ error: 'Give one cursor only.' })
    .regex(VISITS_CURSOR_PATTERN, { error: 'The cursor is not valid.' })
    .optional()
    .describe('Where the page starts: the X-Next-Cursor header of the previous page.'),
});
export type VisitorsQuery = z.infer<typeof visitorsQuerySchema>;
