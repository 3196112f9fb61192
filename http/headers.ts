// Reading identity headers that some endpoints require (SPEC §5.6), validated like any input.
import type { z } from 'zod';
import { validationError } from './envelope.js';

export function parseHeaders<T>(schema: z.ZodType<T>, headers: Record<string, string>): T {
  const result = schema.safeParse(headers);
  if (!result.success) throw validationError('headers', result.error);
  return result.data;
}
