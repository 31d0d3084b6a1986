/** Options of a call, validated against their schema before anything is done with them. */
import type { z } from 'zod';
import { SatchelError } from './errors.js';

/** Validates options against their schema: INVALID_INPUT naming the first bad field. */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // A strict schema names the argument it does not know: "overwrite", not "options".
  if (issue?.code === 'unrecognized_keys') {
    const [unknown = '?'] = issue.keys;
    const at = issue.path.length === 0 ? '' : ` in ${issue.path.join('.')}`;
    throw new SatchelError('INVALID_INPUT', `unknown argument ${JSON.stringify(unknown)}${at}`, {
      field: [...issue.path, unknown].join('.'),
      reason: 'unknown_argument',
    });
  }
  const field = issue?.path.join('.') || 'options';
  throw new SatchelError(
    'INVALID_INPUT',
    `invalid ${field}: ${issue?.message ?? 'invalid value'}`,
    {
      field,
    },
  );
}
