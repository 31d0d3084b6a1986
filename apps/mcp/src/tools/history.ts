/** History: list_versions, diff_versions, restore_version, get_changes. */
import { z } from 'zod';
import {
  type AnyTool,
  argOf,
  checkPath,
  defineTool,
  IfMatchArg,
  LockTokenArg,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const VersionPage = resultOf('listVersions').shape;

const listVersions = defineTool({
  name: 'list_versions',
  title: 'List versions',
  description:
    "A file's versions, newest first (seq, author, time, size, deletions), across moves; paged.",
  operation: 'listVersions',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    cursor: optionsOf('listVersions').shape.cursor,
    limit: optionsOf('listVersions').shape.limit.describe('default 100'),
  },
  output: { path: z.string(), versions: VersionPage.items, nextCursor: VersionPage.nextCursor },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path);
    const page = await ctx.satchel.listVersions(ws, path, {
      cursor: args.cursor,
      limit: args.limit,
    });
    const lines = page.items.map(
      (v) =>
        `seq ${v.seq}: ${v.deleted ? 'deleted' : `${v.op}, ${v.size} bytes`} by ${v.author} at ${v.time}${v.path === path ? '' : ` (as ${v.path})`}`,
    );
    if (page.nextCursor !== null) lines.push(`[older versions: cursor=${page.nextCursor}]`);
    return {
      structured: { path, versions: page.items, nextCursor: page.nextCursor },
      text: lines.join('\n'),
    };
  },
});

const diff = optionsOf('diff').shape;

const diffVersions = defineTool({
  name: 'diff_versions',
  title: 'Diff versions',
  description:
    'Unified diff between two versions of a file (default: the head and the one before).',
  operation: 'diff',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    from: diff.from.describe('older seq'),
    to: diff.to.describe('newer seq'),
  },
  output: { ...resultOf('diff').shape, truncated: z.boolean() },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const result = await ctx.satchel.diff(ws, checkPath(args.path), {
      ...ctx.call(),
      from: args.from,
      to: args.to,
    });
    const max = ctx.limits.maxReadBytes;
    const bytes = Buffer.from(result.diff);
    const truncated = bytes.byteLength > max;
    const diff = truncated
      ? bytes
          .subarray(0, max)
          .toString('utf8')
          .replace(/\uFFFD$/, '')
      : result.diff;
    const text = result.binary
      ? `binary content differs between version ${result.from ?? '(none)'} and ${result.to}`
      : diff === ''
        ? `no difference between version ${result.from ?? '(none)'} and ${result.to}`
        : `${diff}${truncated ? '\n[diff cut at the read limit]' : ''}`;
    return { structured: { ...result, diff, truncated }, text };
  },
});

const restoreVersion = defineTool({
  name: 'restore_version',
  title: 'Restore version',
  description: 'Make an old version current again as a new version; also undeletes.',
  operation: 'restore',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    version: argOf('restore', 'seq'),
    ifMatch: IfMatchArg,
    lockToken: LockTokenArg,
  },
  output: resultOf('restore').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const info = await ctx.satchel.restore(ws, checkPath(args.path), args.version, {
      ...ctx.call(),
      ifMatch: args.ifMatch,
      lockToken: args.lockToken,
    });
    return {
      structured: info,
      text: `restored ${info.path} to the content of version ${args.version}: new version ${info.seq}`,
    };
  },
});

const changes = optionsOf('listChanges').shape;
const ChangesPage = resultOf('listChanges').shape;

const getChanges = defineTool({
  name: 'get_changes',
  title: 'Get changes',
  description:
    'Changes after since (a seq), oldest first; pass the returned cursor as since next; waitSeconds waits.',
  operation: 'listChanges',
  input: {
    workspace: WorkspaceArg,
    // The engine's `after`, named as the cursor it continues from.
    since: changes.after.describe('default 0'),
    path: changes.path.describe('only at or beneath'),
    waitSeconds: changes.waitSeconds.describe('long poll'),
    limit: changes.limit.describe('default 100'),
  },
  output: {
    events: ChangesPage.events,
    cursor: ChangesPage.cursor.describe(
      'pass as since to continue: the seq of the last event, else since',
    ),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const page = await ctx.satchel.listChanges(ws, {
      ...ctx.call(),
      after: args.since,
      path: args.path === undefined ? undefined : checkPath(args.path),
      waitSeconds: args.waitSeconds,
      limit: args.limit,
    });
    const lines = page.events.map(
      (e) => `${e.seq} ${e.type}${e.deleted ? ' (deleted)' : ''} ${e.path} by ${e.actor}`,
    );
    lines.push(
      page.events.length === 0
        ? `[no changes after ${page.cursor}]`
        : `[continue with since=${page.cursor}]`,
    );
    return { structured: page, text: lines.join('\n') };
  },
});

export const historyTools: AnyTool[] = [listVersions, diffVersions, restoreVersion, getChanges];
