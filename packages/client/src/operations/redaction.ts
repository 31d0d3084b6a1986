/**
 * Redaction: an owner removes the content of a version (or of every version of a path) for good.
 * Metadata and the audit trail stay; reads of it are REDACTED; its content is collected by the
 * next garbage collection once nothing else refers to it.
 */
import { z } from 'zod';
import { RedactOptionsSchema, RedactResultSchema } from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

export const redact = operation({
  name: 'redact',
  summary: 'Remove the content of a version, or of every version of a file, for good (owners)',
  tag: 'files',
  args: [WORKSPACE_ARG, ['path', z.string()]],
  options: RedactOptionsSchema,
  optionsRequired: true,
  result: RedactResultSchema,
  access: { workspace: 'workspace.manage' },
  auditPath: ([, path]) => path,
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/redact' },
});
