/**
 * Changing the past over MCP (docs/time-travel.md): undo and merge preview unless `apply`, then
 * apply against the head they previewed (PRECONDITION_FAILED if it moved); fork; redact (owners).
 * No output schemas: the listing's token budget (agent-trips.test.ts) — the text says it all.
 */
import { z } from 'zod';
import { type AnyTool, argOf, defineTool, optionsOf, WorkspaceArg } from '../tool.js';

const Apply = z.boolean().optional().describe('write it (default: preview only)');
const count = (s: Record<string, number>) =>
  Object.entries(s)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');

const undoTool = defineTool({
  name: 'undo',
  title: 'Undo',
  description:
    "Preview undoing a session's changes (or all since a seq/snapshot); apply: true writes it.",
  operation: 'undo',
  hints: { destructive: true, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    session: z.string().optional(),
    since: z.union([z.number(), z.string()]).optional(),
    apply: Apply,
  },
  async run({ workspace, apply, ...target }, ctx) {
    const ws = await ctx.workspace(workspace);
    const preview = await ctx.satchel.previewUndo(ws, target, { ...ctx.call(), diff: false });
    const conflicts = preview.conflicts.map((c) => `conflict ${c.reason} ${c.path}`);
    if (!apply) {
      const lines = [
        `undo preview: ${count(preview.summary)}`,
        ...preview.changes.map((c) => `${c.action} ${c.path}`),
        ...conflicts,
      ];
      return {
        structured: { head: preview.head, summary: preview.summary },
        text: lines.join('\n'),
      };
    }
    const done = await ctx.satchel.undo(ws, target, {
      ...ctx.call(),
      ifHead: preview.head,
      diff: false,
    });
    const text =
      done.seq === null
        ? 'nothing to undo'
        : `undone in seq ${done.seq} as session ${done.session}`;
    return {
      structured: { seq: done.seq, session: done.session, summary: done.summary },
      text: [text, ...conflicts].join('\n'),
    };
  },
});

const forkTool = defineTool({
  name: 'fork_workspace',
  title: 'Fork workspace',
  description: 'Copy a workspace (at a seq or snapshot) into a new one you own, to try changes.',
  operation: 'forkWorkspace',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    name: argOf('forkWorkspace', 'name'),
    at: optionsOf('forkWorkspace').shape.at,
  },
  async run({ workspace, name, at }, ctx) {
    const ws = await ctx.workspace(workspace);
    const fork = await ctx.satchel.forkWorkspace(ws, name, {
      ...ctx.call(),
      ...(at === undefined ? {} : { at }),
    });
    return { structured: fork, text: `forked ${fork.source} at seq ${fork.at} into ${fork.name}` };
  },
});

const mergeTool = defineTool({
  name: 'merge_workspace',
  title: 'Merge workspace',
  description:
    'Preview merging a fork into its source workspace; apply: true writes it, conflicts kept beside.',
  operation: 'merge',
  hints: { destructive: false, idempotent: false },
  input: { workspace: WorkspaceArg, from: argOf('merge', 'from'), apply: Apply },
  async run({ workspace, from, apply }, ctx) {
    const ws = await ctx.workspace(workspace);
    const preview = await ctx.satchel.previewMerge(ws, from, ctx.call());
    const conflicts = preview.conflicts.map(
      (c) => `conflict ${c.path}${c.keptAs ? ` (theirs: ${c.keptAs})` : ''}`,
    );
    if (!apply) {
      const lines = [
        `merge preview: ${count(preview.summary)}`,
        ...preview.changes.map((c) => `${c.action} ${c.path}`),
        ...conflicts,
      ];
      return { structured: { summary: preview.summary }, text: lines.join('\n') };
    }
    const done = await ctx.satchel.merge(ws, from, {
      ...ctx.call(),
      ifHead: preview.head,
      ifFromHead: preview.fromHead,
    });
    const text =
      done.seq === null
        ? 'nothing to merge'
        : `merged in seq ${done.seq} as session ${done.session}`;
    return {
      structured: { seq: done.seq, session: done.session, summary: done.summary },
      text: [text, ...conflicts].join('\n'),
    };
  },
});

const redactTool = defineTool({
  name: 'redact',
  title: 'Redact',
  description: "Owners: erase a version's content (or all versions') for good; metadata stays.",
  operation: 'redact',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    path: argOf('redact', 'path'),
    version: optionsOf('redact').shape.version,
    all: optionsOf('redact').shape.all,
  },
  async run({ workspace, path, ...which }, ctx) {
    const ws = await ctx.workspace(workspace);
    const done = await ctx.satchel.redact(ws, path, { ...ctx.call(), ...which });
    return {
      structured: done,
      text: `redacted ${done.path} versions ${done.seqs.join(', ') || 'none (already)'}`,
    };
  },
});

export const pastTools: AnyTool[] = [undoTool, forkTool, mergeTool, redactTool];
