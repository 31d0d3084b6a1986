/** Options of a call, validated against their schema before anything is done with them. */
import type { z } from 'zod';
import { SatchelError } from './errors.js';

/** Validates options against their schema: INVALID_INPUT naming the first bad field. */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || 'options';
  throw new SatchelError(
    'INVALID_INPUT',
    `invalid ${field}: ${issue?.message ?? 'invalid value'}`,
    {
      field,
    },
  );
}
