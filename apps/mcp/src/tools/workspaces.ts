/** Workspaces: list_workspaces, create_workspace, delete_workspace. */
import { type AnyTool, argOf, defineTool, optionsOf, resultOf } from '../tool.js';

const WorkspacePage = resultOf('listWorkspaces').shape;

const listWorkspaces = defineTool({
  name: 'list_workspaces',
  title: 'List workspaces',
  description: 'The workspaces your key sees, paged.',
  operation: 'listWorkspaces',
  input: {
    cursor: optionsOf('listWorkspaces').shape.cursor,
    limit: optionsOf('listWorkspaces').shape.limit.describe('default 100'),
  },
  output: { workspaces: WorkspacePage.items, nextCursor: WorkspacePage.nextCursor },
  async run(args, ctx) {
    const page = await ctx.satchel.listWorkspaces({ cursor: args.cursor, limit: args.limit });
    const lines = page.items.map((w) => `${w.name} (seq ${w.seq})`);
    if (page.nextCursor !== null) lines.push(`[more with cursor=${page.nextCursor}]`);
    return {
      structured: { workspaces: page.items, nextCursor: page.nextCursor },
      text:
        lines.length === 0 ? 'no workspaces yet (create_workspace makes one)' : lines.join('\n'),
    };
  },
});

const createWorkspace = defineTool({
  name: 'create_workspace',
  title: 'Create workspace',
  description: 'Create an empty workspace you own (name: a-z, 0-9, ".", "_", "-").',
  operation: 'createWorkspace',
  hints: { destructive: false, idempotent: false },
  input: { name: argOf('createWorkspace', 'name') },
  output: resultOf('createWorkspace').shape,
  async run(args, ctx) {
    const ws = await ctx.satchel.createWorkspace(args.name, ctx.call());
    return { structured: ws, text: `created workspace ${ws.name}` };
  },
});

const deleteWorkspace = defineTool({
  name: 'delete_workspace',
  title: 'Delete workspace',
  description:
    'Owners: delete a workspace with all its files and history, for good. Name it: no default.',
  operation: 'deleteWorkspace',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: argOf('deleteWorkspace', 'workspace').min(1),
  },
  async run(args, ctx) {
    await ctx.satchel.deleteWorkspace(args.workspace, ctx.call());
    return {
      structured: { workspace: args.workspace, deleted: true },
      text: `deleted workspace ${args.workspace}`,
    };
  },
});

export const workspaceTools: AnyTool[] = [listWorkspaces, createWorkspace, deleteWorkspace];
