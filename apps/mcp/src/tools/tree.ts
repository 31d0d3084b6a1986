/**
 * The shape of a workspace: create_directory, list_directory, list_directory_with_sizes,
 * directory_tree, move_file, copy_file. Every listing is bounded (pages, entry and depth caps)
 * and says how many entries exist.
 */

import { excludeMatcher, type FileInfo } from '@satchel/core';
import { z } from 'zod';
import {
  type AnyTool,
  AtArg,
  argOf,
  checkPath,
  defineTool,
  LockTokenArg,
  optionsOf,
  PathArg,
  resultOf,
  type ToolContext,
  WorkspaceArg,
} from '../tool.js';

const list = optionsOf('list').shape;
const DirArg = list.path.describe('default "/"');
const Entries = resultOf('list').shape.items;

function name(info: FileInfo): string {
  return info.path.slice(info.path.lastIndexOf('/') + 1);
}

function line(info: FileInfo): string {
  return info.type === 'directory'
    ? `[DIR] ${name(info)}`
    : `[FILE] ${name(info)} (${info.size} bytes, seq ${info.seq})`;
}

const createDirectory = defineTool({
  name: 'create_directory',
  title: 'Create directory',
  description: 'Create a directory and missing parents; fine if it exists.',
  operation: 'mkdir',
  hints: { destructive: false, idempotent: true },
  input: { workspace: WorkspaceArg, path: PathArg },
  output: resultOf('mkdir').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const info = await ctx.satchel.mkdir(ws, checkPath(args.path), ctx.call());
    return { structured: info, text: `directory ${info.path} exists (seq ${info.seq})` };
  },
});

const listDirectory = defineTool({
  name: 'list_directory',
  title: 'List directory',
  description:
    "A directory's entries by name, paged (limit, default 100), with total and nextCursor.",
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: DirArg,
    cursor: list.cursor,
    limit: list.limit,
    at: AtArg,
  },
  output: {
    path: z.string(),
    entries: Entries,
    total: z.number().int().describe('entries in the directory, all pages together'),
    nextCursor: z.string().nullable(),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path ?? '/');
    const page = await ctx.satchel.list(ws, {
      ...ctx.call(),
      path,
      cursor: args.cursor,
      limit: args.limit,
      at: args.at,
    });
    const lines = page.items.map(line);
    const then = args.at === undefined ? '' : ` at=${args.at}`;
    if (page.nextCursor !== null) {
      lines.push(
        `[${page.items.length} of ${page.total} shown; more with cursor=${page.nextCursor}${then}]`,
      );
    } else if (page.items.length === 0) {
      lines.push(`[${path} is empty]`);
    }
    return {
      structured: { path, entries: page.items, total: page.total, nextCursor: page.nextCursor },
      text: lines.join('\n'),
    };
  },
});

/** Up to `max` entries of a directory (several pages when needed, `at` a past seq), and the total. */
async function directoryEntries(
  ctx: ToolContext,
  ws: string,
  path: string,
  max: number,
  at?: number | string,
) {
  const items: FileInfo[] = [];
  let cursor: string | undefined;
  let total = 0;
  do {
    const page = await ctx.satchel.list(ws, {
      ...ctx.call(),
      path,
      cursor,
      limit: Math.min(1000, max - items.length),
      at,
    });
    items.push(...page.items);
    total = page.total;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && items.length < max);
  return { items, total };
}

const listDirectoryWithSizes = defineTool({
  name: 'list_directory_with_sizes',
  title: 'List directory with sizes',
  description:
    'A directory with sizes and totals, by name or size (largest first); up to 1000 entries.',
  // list, page after page up to the entry limit.
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: DirArg,
    sortBy: z.enum(['name', 'size']).optional(),
  },
  output: {
    path: z.string(),
    entries: Entries,
    total: z.number().int(),
    files: z.number().int(),
    directories: z.number().int(),
    bytes: z.number().int().describe('size of the files listed'),
    truncated: z.boolean(),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path ?? '/');
    const { items, total } = await directoryEntries(ctx, ws, path, ctx.limits.maxEntries);
    if (args.sortBy === 'size') items.sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1));
    const files = items.filter((i) => i.type === 'file');
    const bytes = files.reduce((sum, f) => sum + f.size, 0);
    const truncated = items.length < total;
    const lines = items.map((i) =>
      i.type === 'directory'
        ? `[DIR]  ${name(i)}`
        : `[FILE] ${name(i).padEnd(30)} ${String(i.size).padStart(10)}`,
    );
    lines.push(
      '',
      `Total: ${files.length} files, ${items.length - files.length} directories, ${bytes} bytes`,
    );
    if (truncated)
      lines.push(`[${items.length} of ${total} entries looked at; page with list_directory]`);
    return {
      structured: {
        path,
        entries: items,
        total,
        files: files.length,
        directories: items.length - files.length,
        bytes,
        truncated,
      },
      text: lines.join('\n'),
    };
  },
});

/**
 * A directory_tree node: a file has a size, a directory has children. A directory the bounds cut
 * says so: `truncated`, with `omitted` entries when their number is known (so a cut folder never
 * looks empty).
 */
interface TreeNode {
  name: string;
  size?: number;
  children?: TreeNode[];
  truncated?: true;
  omitted?: number;
}

const TreeNodeSchema: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({
    name: z.string(),
    size: z.number().int().optional(),
    children: z.array(TreeNodeSchema).optional(),
    truncated: z.literal(true).optional(),
    omitted: z.number().int().optional(),
  }),
);

/** One line per entry, no indentation: the relative path (directories end in "/"), then size. */
function treeLines(nodes: readonly TreeNode[], prefix: string, out: string[]): string[] {
  for (const node of nodes) {
    const path = `${prefix}${node.name}`;
    if (node.children === undefined) {
      out.push(`${path} ${node.size ?? 0}`);
      continue;
    }
    const cut =
      node.truncated === true
        ? node.omitted === undefined
          ? ' …'
          : ` … ${node.omitted} more`
        : '';
    out.push(`${path}/${cut}`);
    treeLines(node.children, `${path}/`, out);
  }
  return out;
}

const directoryTree = defineTool({
  name: 'directory_tree',
  title: 'Directory tree',
  description:
    'A subtree as compact lines ("dir/", "file size"), maxDepth 5 and maxEntries 1000 by default; a folder cut short ends in "…".',
  // list, once per directory breadth-first, and once recursively for the total.
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: DirArg,
    excludePatterns: z.array(z.string().max(1000)).max(100).optional(),
    maxDepth: z.number().int().min(1).max(50).optional(),
    maxEntries: z.number().int().min(1).optional(),
    at: AtArg,
  },
  output: {
    path: z.string(),
    tree: z.array(TreeNodeSchema),
    entries: z.number().int().describe('entries in the returned tree'),
    total: z.number().int().describe('entries beneath path, exclusions and bounds ignored'),
    truncated: z.boolean(),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const root = checkPath(args.path ?? '/');
    const maxDepth = args.maxDepth ?? 5;
    const maxEntries = Math.min(args.maxEntries ?? ctx.limits.maxEntries, ctx.limits.maxEntries);
    const excluded = excludeMatcher(args.excludePatterns ?? []);
    const prefix = root === '/' ? 1 : root.length + 1;
    const tree: TreeNode[] = [];
    let entries = 0;
    let cut = false;
    const queue: Array<{ path: string; depth: number; node: TreeNode | null }> = [
      { path: root, depth: 1, node: null },
    ];
    let next = queue.shift();
    for (; next !== undefined && entries < maxEntries; next = queue.shift()) {
      const into = next.node?.children ?? tree;
      const { items, total } = await directoryEntries(
        ctx,
        ws,
        next.path,
        maxEntries - entries,
        args.at,
      );
      if (items.length < total) {
        cut = true;
        if (next.node !== null) {
          next.node.truncated = true;
          next.node.omitted = total - items.length;
        }
      }
      for (const item of items) {
        if (excluded(item.path.slice(prefix))) continue;
        const node: TreeNode = { name: name(item) };
        if (item.type === 'file') node.size = item.size;
        else {
          node.children = [];
          if (next.depth < maxDepth) queue.push({ path: item.path, depth: next.depth + 1, node });
          else {
            node.truncated = true;
            cut = true;
          }
        }
        into.push(node);
        entries++;
      }
    }
    // Folders the entry budget left unvisited are cut too; their size is unknown.
    for (; next !== undefined; next = queue.shift()) {
      cut = true;
      if (next.node !== null) next.node.truncated = true;
    }
    const total = (
      await ctx.satchel.list(ws, {
        ...ctx.call(),
        path: root,
        recursive: true,
        limit: 1,
        at: args.at,
      })
    ).total;
    const truncated = cut && entries < total;
    const lines = treeLines(tree, '', []);
    if (lines.length === 0) lines.push(`[${root} is empty]`);
    if (truncated) {
      lines.push(
        `[${entries} of ${total} entries shown; folders ending in "…" were cut: narrow path or raise maxDepth]`,
      );
    }
    return {
      structured: { path: root, tree, entries, total, truncated },
      text: lines.join('\n'),
    };
  },
});

const moveOrCopy = (kind: 'move' | 'copy') =>
  defineTool({
    name: `${kind}_file`,
    title: kind === 'move' ? 'Move file' : 'Copy file',
    description:
      kind === 'move'
        ? 'Move or rename a file or directory, with its history. CONFLICT if the destination exists.'
        : 'Copy a file or directory (content is shared, not duplicated). CONFLICT if the destination exists.',
    operation: kind,
    hints: { destructive: kind === 'move', idempotent: false },
    input: {
      workspace: WorkspaceArg,
      source: argOf(kind, 'from'),
      destination: argOf(kind, 'to'),
      lockToken: LockTokenArg,
    },
    output: resultOf(kind).shape,
    async run(args, ctx) {
      const ws = await ctx.workspace(args.workspace);
      const from = checkPath(args.source);
      const to = checkPath(args.destination);
      const options = { ...ctx.call(), lockToken: args.lockToken };
      const info =
        kind === 'move'
          ? await ctx.satchel.move(ws, from, to, options)
          : await ctx.satchel.copy(ws, from, to, options);
      return {
        structured: info,
        text: `${kind === 'move' ? 'moved' : 'copied'} ${from} to ${info.path} (seq ${info.seq})`,
      };
    },
  });

export const treeTools: AnyTool[] = [
  createDirectory,
  listDirectory,
  listDirectoryWithSizes,
  directoryTree,
  moveOrCopy('move'),
  moveOrCopy('copy'),
];
