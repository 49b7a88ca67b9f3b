import { HttpException, HttpStatus } from '@nestjs/common';
import type { z } from 'zod';

/**
 * Parses request input with its public schema; the first problem becomes its message, with
 * 400 unless `statusOf` says otherwise for that problem.
 */
export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  statusOf: (issue: z.core.$ZodIssue) => HttpStatus = () => HttpStatus.BAD_REQUEST,
): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpException(
    { message: issue?.message ?? 'Invalid request' },
    issue ? statusOf(issue) : HttpStatus.BAD_REQUEST,
  );
}
