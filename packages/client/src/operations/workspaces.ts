/** Operations on workspaces: create, list, inspect, change settings, delete. */
import { z } from 'zod';
import {
  CallOptionsSchema,
  PageOptionsSchema,
  pageSchema,
  UpdateWorkspaceSchema,
  WorkspaceInfoSchema,
  WorkspaceSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

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

export const updateWorkspace = operation({
  name: 'updateWorkspace',
  summary:
    "Change a workspace's settings (owners): indexing off drops the search index, on rebuilds it",
  tag: 'workspaces',
  args: [WORKSPACE_ARG],
  options: UpdateWorkspaceSchema,
  optionsRequired: true,
  result: WorkspaceInfoSchema,
  access: { workspace: 'workspace.manage' },
  mutates: true,
  http: { method: 'PATCH', path: '/workspaces/:ws', validators: newestSeq },
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
