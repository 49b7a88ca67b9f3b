import { BadRequestException } from '@nestjs/common';
import type { z } from 'zod';

/** Parses request input with its public schema; the first problem becomes a 400 message. */
export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new BadRequestException(parsed.error.issues[0]?.message ?? 'Invalid request');
}
