/**
 * Snapshots: create_snapshot names the workspace as it is (a seq; nothing is copied), and the
 * reading tools take the name as `at`; list_snapshots pages them. Deleting one stays with REST
 * and the CLI (`satchel snapshot rm`): forgetting a name is a person's call, not an agent's.
 */
import type { Snapshot } from '@satchel/core/schemas';
import { type AnyTool, argOf, defineTool, optionsOf, resultOf, WorkspaceArg } from '../tool.js';

const create = optionsOf('createSnapshot').shape;
const page = resultOf('listSnapshots').shape;

function snapshotLine(s: Snapshot): string {
  const message = s.message === null ? '' : `: ${s.message}`;
  return `${s.name} = seq ${s.seq}, by ${s.createdBy} at ${s.createdAt}${message}`;
}

const createSnapshot = defineTool({
  name: 'create_snapshot',
  title: 'Create snapshot',
  description:
    'Name the workspace as it is now (or at seq), e.g. before a risky change; read it with at.',
  operation: 'createSnapshot',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    name: argOf('createSnapshot', 'name').describe('e.g. before-cleanup'),
    seq: create.seq.describe('default: the head'),
    message: create.message,
  },
  output: resultOf('createSnapshot').shape,
  async run(args, ctx) {
    const { workspace, name, ...options } = args;
    const ws = await ctx.workspace(workspace);
    const snapshot = await ctx.satchel.createSnapshot(ws, name, { ...ctx.call(), ...options });
    return {
      structured: snapshot,
      text: `snapshot ${snapshotLine(snapshot)}\nread it with at: "${snapshot.name}"`,
    };
  },
});

const listSnapshots = defineTool({
  name: 'list_snapshots',
  title: 'List snapshots',
  description: "The workspace's snapshots (name, seq, who, when), newest first; paged.",
  operation: 'listSnapshots',
  input: {
    workspace: WorkspaceArg,
    cursor: optionsOf('listSnapshots').shape.cursor,
    limit: optionsOf('listSnapshots').shape.limit.describe('default 100'),
  },
  output: { snapshots: page.items, nextCursor: page.nextCursor },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const found = await ctx.satchel.listSnapshots(ws, { cursor: args.cursor, limit: args.limit });
    const lines = found.items.map(snapshotLine);
    if (lines.length === 0) lines.push(`[${ws} has no snapshots: create_snapshot makes one]`);
    if (found.nextCursor !== null) lines.push(`[more with cursor=${found.nextCursor}]`);
    return {
      structured: { snapshots: found.items, nextCursor: found.nextCursor },
      text: lines.join('\n'),
    };
  },
});

export const snapshotTools: AnyTool[] = [createSnapshot, listSnapshots];
