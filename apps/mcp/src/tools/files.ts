/** Writing tools: write_file, append_file, edit_file, delete_file. */

import { SatchelError } from '@satchel/core';
import { z } from 'zod';
import {
  type AnyTool,
  argOf,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';

const EncodingArg = z
  .enum(['utf8', 'base64'])
  .optional()
  .describe('utf8 (default) for text; base64 for binary content');
const IF_MATCH =
  'write only if the current version is this one (from a read or get_file_info); PRECONDITION_FAILED if the file changed meanwhile';

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
    'Create a file or replace its whole content (parent directories are created). Every write is a new version; nothing is lost (see list_versions, restore_version). ' +
    'To change part of a text file prefer edit_file; to add to the end use append_file. ' +
    "Pass ifMatch with the version you read to avoid overwriting someone else's change, and lockToken if you hold a lock (lock_file). " +
    'Binary content: encoding "base64". Returns the new version.',
  operation: 'writeFile',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    content: z.string().describe('the full new content'),
    encoding: EncodingArg,
    ifMatch: optionsOf('writeFile').shape.ifMatch.describe(IF_MATCH),
    lockToken: optionsOf('writeFile').shape.lockToken,
  },
  output: resultOf('writeFile').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path);
    const info = await ctx.satchel.writeFile(ws, path, decodeContent(args.content, args.encoding), {
      ...ctx.call(),
      ifMatch: args.ifMatch,
      lockToken: args.lockToken,
    });
    return {
      structured: info,
      text: info.unchanged
        ? `${info.path} already holds this content at version ${info.seq} (your earlier write, retried): nothing written`
        : `wrote ${info.path}: version ${info.seq}, ${info.size} bytes`,
    };
  },
});

const appendFile = defineTool({
  name: 'append_file',
  title: 'Append to file',
  description:
    'Add content to the end of a file, creating it if missing: the way to grow logs and notes without reading and rewriting them. ' +
    'Appends from several agents never overwrite each other. Returns the new version.',
  operation: 'appendFile',
  hints: { destructive: false, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    content: z.string().describe('what to add (include the trailing newline if you want one)'),
    encoding: EncodingArg,
    lockToken: optionsOf('appendFile').shape.lockToken,
  },
  output: resultOf('appendFile').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path);
    const info = await ctx.satchel.appendFile(
      ws,
      path,
      decodeContent(args.content, args.encoding),
      { ...ctx.call(), lockToken: args.lockToken },
    );
    return {
      structured: info,
      text: `appended to ${info.path}: version ${info.seq}, now ${info.size} bytes`,
    };
  },
});

const edit = optionsOf('editFile').shape;

const editFile = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  description:
    "Replace exact text in a text file: each edit's oldText must occur exactly once (or set replaceAll), edits apply in order. " +
    'Returns a unified diff of the change; dryRun previews it without writing. ' +
    'When oldText matches nothing or several places, nothing is written and the error shows the nearest lines (or all matches) so you can fix oldText. ' +
    'Without ifMatch a concurrent change is merged by re-applying the edits to the newest version; with ifMatch the edit fails instead.',
  operation: 'editFile',
  hints: { destructive: true, idempotent: false },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    // Fewer than the engine takes (1000): an agent's edit list travels in one tool call.
    edits: argOf('editFile', 'edits').max(100).describe('replacements, applied in order'),
    dryRun: edit.dryRun.describe('preview the diff, write nothing'),
    ifMatch: edit.ifMatch.describe(IF_MATCH),
    lockToken: edit.lockToken,
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
      : `edited ${result.info.path}: version ${result.info.seq}, ${result.replacements} replacement(s)`;
    return { structured: result, text: `${head}\n${result.diff}` };
  },
});

const remove = optionsOf('remove').shape;

const deleteFile = defineTool({
  name: 'delete_file',
  title: 'Delete file',
  description:
    'Delete a file, or a directory (recursive: true when it is not empty). The history stays: a deleted file can be brought back with restore_version. ' +
    'Pass ifMatch to delete only the version you know about.',
  operation: 'remove',
  hints: { destructive: true, idempotent: true },
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    recursive: remove.recursive,
    ifMatch: remove.ifMatch.describe('delete only if the current version is this one'),
    lockToken: remove.lockToken,
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
      text: `deleted ${path} (${result.removed} entr${result.removed === 1 ? 'y' : 'ies'}) at version ${result.seq}`,
    };
  },
});

export const fileTools: AnyTool[] = [writeFile, appendFile, editFile, deleteFile];
