/**
 * Snapshots: a name for a seq of a workspace — one state of all its files — that reads take as
 * `at` (REST `?at=`). Creating one copies nothing.
 */
import { z } from 'zod';
import {
  CallOptionsSchema,
  CreateSnapshotOptionsSchema,
  PageOptionsSchema,
  pageSchema,
  SnapshotSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

const NAME_ARG = ['name', z.string()] as const;

export const createSnapshot = operation({
  name: 'createSnapshot',
  summary: 'Name the workspace as it is now (or at a seq): reads take the name as `at`',
  tag: 'snapshots',
  args: [WORKSPACE_ARG, NAME_ARG],
  options: CreateSnapshotOptionsSchema,
  result: SnapshotSchema,
  access: { workspace: 'file.write' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/snapshots', status: 201 },
});

export const listSnapshots = operation({
  name: 'listSnapshots',
  summary: "A workspace's snapshots, newest seq first",
  tag: 'snapshots',
  args: [WORKSPACE_ARG],
  options: PageOptionsSchema,
  result: pageSchema(SnapshotSchema),
  access: { workspace: 'workspace.read' },
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/snapshots',
    query: { cursor: 'string', limit: 'integer' },
  },
});

export const deleteSnapshot = operation({
  name: 'deleteSnapshot',
  summary: 'Forget a snapshot name (the history it named stays)',
  tag: 'snapshots',
  args: [WORKSPACE_ARG, NAME_ARG],
  options: CallOptionsSchema,
  access: { workspace: 'file.write' },
  mutates: true,
  http: { method: 'DELETE', path: '/workspaces/:ws/snapshots/:name', status: 204 },
});
