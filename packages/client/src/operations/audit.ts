/** Operations on the audit log, and on all stored content: the integrity check and GC. */
import {
  AuditEntrySchema,
  AuditQuerySchema,
  AuditVerificationSchema,
  FsckReportSchema,
  GcOptionsSchema,
  GcReportSchema,
  pageSchema,
} from '../schemas/index.js';
import { operation } from './operation.js';

export const listAudit = operation({
  name: 'listAudit',
  summary: 'Audit entries, oldest first: of one workspace (its owners) or of all (admins)',
  tag: 'audit',
  args: [],
  options: AuditQuerySchema,
  result: pageSchema(AuditEntrySchema),
  access: ([options]) =>
    options?.workspace === undefined ? { global: 'admin' } : { workspace: 'audit.read' },
  workspace: ([options]) => options?.workspace ?? null,
  mutates: false,
  http: { custom: 'two routes (one workspace, all) and `after` as the cursor (routes/audit.ts)' },
});

export const verifyAudit = operation({
  name: 'verifyAudit',
  summary: 'Recompute the hash chain and check the checkpoint; names the first broken entry',
  tag: 'audit',
  args: [],
  result: AuditVerificationSchema,
  access: { global: 'admin' },
  mutates: false,
  http: { method: 'GET', path: '/audit/verify' },
});

export const fsck = operation({
  name: 'fsck',
  summary: 'Re-hash all content and check every reference (admins)',
  tag: 'audit',
  args: [],
  result: FsckReportSchema,
  access: { global: 'admin' },
  mutates: false,
  http: { method: 'POST', path: '/fsck' },
});

export const collectGarbage = operation({
  name: 'collectGarbage',
  summary:
    'Remove content no version refers to any more, after a grace period (admins); a dry run only reports',
  tag: 'audit',
  args: [],
  options: GcOptionsSchema,
  result: GcReportSchema,
  access: { global: 'admin' },
  mutates: false,
  http: { method: 'POST', path: '/gc' },
});
