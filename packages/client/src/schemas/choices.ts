/**
 * The closed sets the schemas enumerate, as plain tuples without zod: the schemas are built from
 * them (`z.enum(ROLES)`), and a frontend that only lists them (the CLI's option choices, shown by
 * `--help`) can import them without loading zod.
 */

export const ROLES = ['owner', 'editor', 'viewer'] as const;

export const PRINCIPAL_KINDS = ['user', 'agent'] as const;

export const VERSION_OPS = [
  'write',
  'append',
  'edit',
  'mkdir',
  'delete',
  'move',
  'copy',
  'restore',
] as const;
