/**
 * Share links: read-only, expiring links to a file or folder for people without an account,
 * optionally with a password and a download limit; opened at `GET /s/<token>` (no API key).
 * Editors and owners create and list them; a link's creator or an owner revokes it.
 */
import { z } from 'zod';
import {
  CreatedShareLinkSchema,
  CreateShareLinkSchema,
  PageOptionsSchema,
  pageSchema,
  ShareLinkSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

export const createShareLink = operation({
  name: 'createShareLink',
  summary: 'A read-only link to a file or folder for people without an account; token shown once',
  tag: 'share links',
  args: [WORKSPACE_ARG],
  options: CreateShareLinkSchema,
  optionsRequired: true,
  result: CreatedShareLinkSchema,
  access: { workspace: 'share.manage' },
  mutates: true,
  auditPath: ([, input]) => input?.path ?? null,
  http: { method: 'POST', path: '/workspaces/:ws/share-links', status: 201 },
});

export const listShareLinks = operation({
  name: 'listShareLinks',
  summary: "A workspace's share links (never their tokens), newest first",
  tag: 'share links',
  args: [WORKSPACE_ARG],
  options: PageOptionsSchema,
  result: pageSchema(ShareLinkSchema),
  access: { workspace: 'share.read' },
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/share-links',
    query: { cursor: 'string', limit: 'integer' },
  },
});

export const revokeShareLink = operation({
  name: 'revokeShareLink',
  summary: 'Revoke a share link at once (its creator or an owner)',
  tag: 'share links',
  args: [WORKSPACE_ARG, ['id', z.string().max(100)]],
  result: ShareLinkSchema,
  access: { workspace: 'share.manage' },
  mutates: true,
  http: { method: 'DELETE', path: '/workspaces/:ws/share-links/:id' },
});
