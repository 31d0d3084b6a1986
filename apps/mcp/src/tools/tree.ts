/**
 * The shape of a workspace: create_directory, list_directory, list_directory_with_sizes,
 * directory_tree, move_file, copy_file. Every listing is bounded (pages, entry and depth caps)
 * and says how many entries exist.
 */

import { excludeMatcher, type FileInfo } from '@satchel/core';
import { z } from 'zod';
import {
  type AnyTool,
  argOf,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  type ToolContext,
  WorkspaceArg,
} from '../tool.js';

const list = optionsOf('list').shape;
const DirArg = list.path.describe('directory inside the workspace (default "/")');
const Entries = resultOf('list').shape.items;

function name(info: FileInfo): string {
  return info.path.slice(info.path.lastIndexOf('/') + 1);
}

function line(info: FileInfo): string {
  return info.type === 'directory'
    ? `[DIR] ${name(info)}`
    : `[FILE] ${name(info)} (${info.size} bytes, version ${info.seq})`;
}

const createDirectory = defineTool({
  name: 'create_directory',
  title: 'Create directory',
  description:
    'Create a directory and any missing parents; succeeds if it already exists. Writing a file creates its parents too, so this is only needed for empty directories.',
  operation: 'mkdir',
  hints: { destructive: false, idempotent: true },
  input: { workspace: WorkspaceArg, path: PathArg },
  output: resultOf('mkdir').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const info = await ctx.satchel.mkdir(ws, checkPath(args.path), ctx.call());
    return { structured: info, text: `directory ${info.path} exists (version ${info.seq})` };
  },
});

const listDirectory = defineTool({
  name: 'list_directory',
  title: 'List directory',
  description:
    'List the entries directly inside a directory, in name order, one page at a time (default 100, max 1000) with the total count; ' +
    'pass nextCursor back as cursor for the next page. For a whole subtree use directory_tree, to find files by name pattern search_files.',
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: DirArg,
    cursor: list.cursor.describe('nextCursor of the previous page'),
    limit: list.limit.describe('entries per page (default 100, max 1000)'),
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
    });
    const lines = page.items.map(line);
    if (page.nextCursor !== null) {
      lines.push(
        `[${page.items.length} of ${page.total} shown; more with cursor=${page.nextCursor}]`,
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

/** Up to `max` entries of a directory (several pages when needed), and the total. */
async function directoryEntries(ctx: ToolContext, ws: string, path: string, max: number) {
  const items: FileInfo[] = [];
  let cursor: string | undefined;
  let total = 0;
  do {
    const page = await ctx.satchel.list(ws, {
      ...ctx.call(),
      path,
      cursor,
      limit: Math.min(1000, max - items.length),
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
    "List a directory with file sizes and totals, sorted by name or by size (largest first). Looks at up to the server's entry limit (default 1000); " +
    'a bigger directory is flagged truncated and sorted among those only — page through it with list_directory.',
  // list, page after page up to the entry limit.
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: DirArg,
    sortBy: z.enum(['name', 'size']).optional().describe('name (default) or size, largest first'),
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

interface TreeNode {
  name: string;
  type: 'file' | 'directory';
  size?: number;
  children?: TreeNode[];
}

const TreeNodeSchema: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({
    name: z.string(),
    type: z.enum(['file', 'directory']),
    size: z.number().int().optional(),
    children: z.array(TreeNodeSchema).optional(),
  }),
);

const directoryTree = defineTool({
  name: 'directory_tree',
  title: 'Directory tree',
  description:
    "A recursive tree of a directory as JSON ({name, type, size, children}), breadth-first, bounded by maxDepth (default 5) and maxEntries (default and maximum: the server's entry limit, 1000). " +
    'When a bound cuts the tree, truncated is true and total tells how many entries the subtree has; look deeper with a narrower path. ' +
    'excludePatterns skips entries by glob ("node_modules", "*.log", "build/**").',
  // list, once per directory breadth-first, and once recursively for the total.
  operation: 'list',
  input: {
    workspace: WorkspaceArg,
    path: DirArg,
    excludePatterns: z.array(z.string().max(1000)).max(100).optional(),
    maxDepth: z.number().int().min(1).max(50).optional().describe('levels below path (default 5)'),
    maxEntries: z.number().int().min(1).optional().describe('entries to return at most'),
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
    let truncated = false;
    const queue: Array<{ path: string; depth: number; into: TreeNode[] }> = [
      { path: root, depth: 1, into: tree },
    ];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { items, total } = await directoryEntries(ctx, ws, next.path, maxEntries - entries);
      if (items.length < total) truncated = true;
      for (const item of items) {
        if (excluded(item.path.slice(prefix))) continue;
        const node: TreeNode = { name: name(item), type: item.type };
        if (item.type === 'file') node.size = item.size;
        else {
          node.children = [];
          if (next.depth < maxDepth)
            queue.push({ path: item.path, depth: next.depth + 1, into: node.children });
          else truncated ||= true;
        }
        next.into.push(node);
        entries++;
      }
      if (entries >= maxEntries) {
        truncated ||= queue.length > 0;
        break;
      }
    }
    const total = (
      await ctx.satchel.list(ws, { ...ctx.call(), path: root, recursive: true, limit: 1 })
    ).total;
    truncated &&= entries < total;
    const note = truncated
      ? `\n[${entries} of ${total} entries shown; narrow path or raise maxDepth]`
      : '';
    return {
      structured: { path: root, tree, entries, total, truncated },
      text: `${JSON.stringify(tree, null, 2)}${note}`,
    };
  },
});

const moveOrCopy = (kind: 'move' | 'copy') =>
  defineTool({
    name: `${kind}_file`,
    title: kind === 'move' ? 'Move file' : 'Copy file',
    description:
      kind === 'move'
        ? 'Move or rename a file or directory; its history moves with it. Fails with CONFLICT if the destination exists.'
        : 'Copy a file or directory. Cheap: content is shared, not duplicated. Fails with CONFLICT if the destination exists.',
    operation: kind,
    hints: { destructive: kind === 'move', idempotent: false },
    input: {
      workspace: WorkspaceArg,
      source: argOf(kind, 'from').describe('the path to move or copy'),
      destination: argOf(kind, 'to').describe('the new path'),
      lockToken: optionsOf(kind).shape.lockToken,
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
        text: `${kind === 'move' ? 'moved' : 'copied'} ${from} to ${info.path} (version ${info.seq})`,
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
