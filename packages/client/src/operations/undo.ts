/**
 * Undo: take back a session's changes, a principal's since a point, or everything since a
 * snapshot — previewed first, then applied as new versions in one seq (docs/time-travel.md).
 */
import {
  UndoOptionsSchema,
  UndoPreviewOptionsSchema,
  UndoPreviewSchema,
  UndoResultSchema,
  UndoTargetSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

const TARGET_ARG = ['target', UndoTargetSchema] as const;

export const previewUndo = operation({
  name: 'previewUndo',
  summary: 'What undoing some changes would do to each path (nothing is written); conflicts listed',
  tag: 'history',
  args: [WORKSPACE_ARG, TARGET_ARG],
  options: UndoPreviewOptionsSchema,
  result: UndoPreviewSchema,
  access: { workspace: 'file.read' },
  mutates: false,
  http: { method: 'POST', path: '/workspaces/:ws/undo/preview' },
});

export const undo = operation({
  name: 'undo',
  summary: "Apply a previewed undo: every change in one new seq, as the undo's own session",
  tag: 'history',
  args: [WORKSPACE_ARG, TARGET_ARG],
  options: UndoOptionsSchema,
  optionsRequired: true,
  result: UndoResultSchema,
  // The paths are known only once the plan is made: the engine checks them against the key's
  // path prefixes then, in the transaction.
  access: { workspace: 'file.write' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/undo' },
});
