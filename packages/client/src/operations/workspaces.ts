/** Operations on workspaces: create, list, inspect, change settings, delete. */
import { z } from 'zod';
import {
  CallOptionsSchema,
  PageOptionsSchema,
  pageSchema,
  UpdateWorkspaceSchema,
  WorkspaceInfoSchema,
  WorkspaceSchema,
  WorkspaceUsageSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A workspace's ETag is its newest seq. */
const newestSeq = (ws: { seq: number }) => ({ seq: ws.seq });

export const createWorkspace = operation({
  name: 'createWorkspace',
  summary: 'Create a workspace; the caller becomes its owner',
  tag: 'workspaces',
  args: [['name', z.string()]],
  options: CallOptionsSchema,
  result: WorkspaceSchema,
  access: { global: 'workspace.create' },
  workspace: ([name]) => name,
  mutates: true,
  http: {
    method: 'POST',
    path: '/workspaces',
    status: 201,
    location: (ws) => `/v1/workspaces/${ws.name}`,
    validators: newestSeq,
  },
});

export const listWorkspaces = operation({
  name: 'listWorkspaces',
  summary: 'The workspaces the caller may see, by name',
  tag: 'workspaces',
  args: [],
  options: PageOptionsSchema,
  result: pageSchema(WorkspaceSchema),
  access: { self: true },
  mutates: false,
  http: { method: 'GET', path: '/workspaces', query: { cursor: 'string', limit: 'integer' } },
});

export const getWorkspace = operation({
  name: 'getWorkspace',
  summary: 'A workspace with its settings, your role and its newest seq (the ETag)',
  tag: 'workspaces',
  args: [WORKSPACE_ARG],
  result: WorkspaceInfoSchema,
  access: { workspace: 'workspace.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws', validators: newestSeq },
});

const QUOTA_SETTINGS = ['quotaBytes', 'quotaHistoryBytes', 'quotaFiles'] as const;

export const updateWorkspace = operation({
  name: 'updateWorkspace',
  summary:
    "Change a workspace's settings (owners; quotas: admins): indexing off drops the search index, on rebuilds it",
  tag: 'workspaces',
  args: [WORKSPACE_ARG],
  options: UpdateWorkspaceSchema,
  optionsRequired: true,
  result: WorkspaceInfoSchema,
  // A quota is a limit the server's operator puts on a workspace's owners: they may not lift it.
  access: ([, settings]) =>
    QUOTA_SETTINGS.some((key) => isObject(settings) && settings[key] !== undefined)
      ? { global: 'admin' }
      : { workspace: 'workspace.manage' },
  mutates: true,
  http: { method: 'PATCH', path: '/workspaces/:ws', validators: newestSeq },
});

export const getWorkspaceUsage = operation({
  name: 'getWorkspaceUsage',
  summary:
    'What a workspace stores: bytes of the current files, with history, deduplicated; files; its quotas',
  tag: 'workspaces',
  args: [WORKSPACE_ARG],
  result: WorkspaceUsageSchema,
  access: { workspace: 'workspace.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/usage' },
});

export const deleteWorkspace = operation({
  name: 'deleteWorkspace',
  summary: 'Delete a workspace with all its files and history (owners)',
  tag: 'workspaces',
  args: [WORKSPACE_ARG],
  options: CallOptionsSchema,
  access: { workspace: 'workspace.delete' },
  mutates: true,
  http: { method: 'DELETE', path: '/workspaces/:ws', status: 204 },
});
