/** Writing tools: write_file, append_file, edit_file, delete_file. */

import { SatchelError } from '@satchel/core';
import { z } from 'zod';
import {
  type AnyTool,
  argOf,
  checkFilePath,
  checkPath,
  defineTool,
  IfMatchArg,
  LockTokenArg,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const EncodingArg = z.enum(['utf8', 'base64']).optional().describe('default utf8');

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The content as bytes or text; INVALID_INPUT for malformed base64. */
export function decodeContent(content: string, encoding: 'utf8' | 'base64' | undefined) {
  if (encoding !== 'base64') return content;
  const compact = content.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) {
    throw new SatchelError('INVALID_INPUT', 'content is not valid base64', { field: 'content' });
  }
  return Buffer.from(compact, 'base64');
}

const writeFile = defineTool({
  name: 'write_file',
  title: 'Write file',
  description:
    'Create or replace a whole file (parents created); returns the new seq. For changes prefer edit_file.',
  operation: 'writeFile',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    content: z.string().describe('the full new content'),
    encoding: EncodingArg,
    ifMatch: IfMatchArg,
    ifNoneMatch: optionsOf('writeFile').shape.ifNoneMatch.describe('"*": fail if it exists'),
    lockToken: LockTokenArg,
  },
  output: resultOf('writeFile').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkFilePath(args.path);
    const info = await ctx.satchel.writeFile(ws, path, decodeContent(args.content, args.encoding), {
      ...ctx.call(),
      ifMatch: args.ifMatch,
      ifNoneMatch: args.ifNoneMatch,
      lockToken: args.lockToken,
    });
    return {
      structured: info,
      text: info.unchanged
        ? `${info.path} already holds this content at seq ${info.seq} (your earlier write, retried): nothing written`
        : `wrote ${info.path}: seq ${info.seq}, ${info.size} bytes`,
    };
  },
});

const appendFile = defineTool({
  name: 'append_file',
  title: 'Append to file',
  description:
    'Add to the end of a file (created if missing); concurrent appends never overwrite each other.',
  operation: 'appendFile',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    content: z.string(),
    encoding: EncodingArg,
    lockToken: LockTokenArg,
  },
  output: resultOf('appendFile').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkFilePath(args.path);
    const info = await ctx.satchel.appendFile(
      ws,
      path,
      decodeContent(args.content, args.encoding),
      { ...ctx.call(), lockToken: args.lockToken },
    );
    return {
      structured: info,
      text: `appended to ${info.path}: seq ${info.seq}, now ${info.size} bytes`,
    };
  },
});

const edit = optionsOf('editFile').shape;

const editFile = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  description:
    'Replace exact text (each oldText must match once, or replaceAll); returns a diff. Any mismatch: nothing is written.',
  operation: 'editFile',
  hints: { destructive: true, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    // Fewer than the engine takes (1000): an agent's edit list travels in one tool call.
    edits: argOf('editFile', 'edits').max(100),
    dryRun: edit.dryRun.describe('write nothing'),
    ifMatch: IfMatchArg,
    lockToken: LockTokenArg,
  },
  output: resultOf('editFile').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const result = await ctx.satchel.editFile(ws, checkPath(args.path), args.edits, {
      ...ctx.call(),
      dryRun: args.dryRun,
      ifMatch: args.ifMatch,
      lockToken: args.lockToken,
    });
    const head = result.dryRun
      ? `dry run: ${result.replacements} replacement(s), nothing written`
      : `edited ${result.info.path}: seq ${result.info.seq}, ${result.replacements} replacement(s)`;
    return { structured: result, text: `${head}\n${result.diff}` };
  },
});

const remove = optionsOf('remove').shape;

const deleteFile = defineTool({
  name: 'delete_file',
  title: 'Delete file',
  description:
    'Delete a file or directory (recursive for a non-empty one). History stays: restore_version brings it back.',
  operation: 'remove',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    recursive: remove.recursive.describe('for a non-empty directory'),
    ifMatch: IfMatchArg,
    lockToken: LockTokenArg,
  },
  output: resultOf('remove').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path);
    const result = await ctx.satchel.remove(ws, path, {
      ...ctx.call(),
      recursive: args.recursive,
      ifMatch: args.ifMatch,
      lockToken: args.lockToken,
    });
    return {
      structured: result,
      text: `deleted ${path} (${result.removed} entr${result.removed === 1 ? 'y' : 'ies'}) at seq ${result.seq}`,
    };
  },
});

export const fileTools: AnyTool[] = [writeFile, appendFile, editFile, deleteFile];
