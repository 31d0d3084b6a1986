/**
 * Fork and merge: a new workspace from another's state at a seq or snapshot (sharing its
 * content), and the three-way merge of one into the other — previewed first, then applied in
 * one seq with conflicts kept beside (docs/time-travel.md).
 */
import { z } from 'zod';
import {
  ForkOptionsSchema,
  ForkSchema,
  MergeOptionsSchema,
  MergePreviewOptionsSchema,
  MergePreviewSchema,
  MergeResultSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

const FROM_ARG = ['from', z.string()] as const;

export const forkWorkspace = operation({
  name: 'forkWorkspace',
  summary:
    'Fork a workspace at a seq or snapshot into a new one you own (content shared, not copied)',
  tag: 'workspaces',
  args: [WORKSPACE_ARG, ['name', z.string()]],
  options: ForkOptionsSchema,
  result: ForkSchema,
  // Reading the source is enough; creating the fork is checked as workspace.create in the engine.
  access: { workspace: 'file.read' },
  mutates: true,
  http: {
    method: 'POST',
    path: '/workspaces/:ws/fork',
    status: 201,
    location: (fork) => `/v1/workspaces/${fork.name}`,
  },
});

export const previewMerge = operation({
  name: 'previewMerge',
  summary:
    'What merging a fork (or its source) into the workspace would do per path; writes nothing',
  tag: 'history',
  args: [WORKSPACE_ARG, FROM_ARG],
  options: MergePreviewOptionsSchema,
  result: MergePreviewSchema,
  access: { workspace: 'file.read' },
  mutates: false,
  http: { method: 'POST', path: '/workspaces/:ws/merge/preview' },
});

export const merge = operation({
  name: 'merge',
  summary: 'Apply a previewed merge in one seq: clean paths written, conflicts kept beside',
  tag: 'history',
  args: [WORKSPACE_ARG, FROM_ARG],
  options: MergeOptionsSchema,
  optionsRequired: true,
  result: MergeResultSchema,
  // The paths are known once the plan is made: the engine checks them, and read on `from`.
  access: { workspace: 'file.write' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/merge' },
});
