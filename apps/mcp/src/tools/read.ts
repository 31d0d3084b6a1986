/** Reading tools: read_text_file, read_media_file, read_multiple_files, get_file_info. */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { type FileInfo, SatchelError, type TextSlice } from '@satchel/core';
import { SeqSchema } from '@satchel/core/schemas';
import { z } from 'zod';
import { describeError } from '../errors.js';
import {
  type AnyTool,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  type ToolContext,
  WorkspaceArg,
} from '../tool.js';
import { fileUri } from '../uri.js';

const VERSION = 'a past version (seq) instead of the head';

/** The line to continue from, or null when the slice reached the end. */
function nextOffset(slice: TextSlice): number | null {
  return slice.truncated ? slice.lineEnd + 1 : null;
}

/** One line for the model about what part of the file this is and how to get the rest. */
function sliceNote(slice: TextSlice, maxBytes: number): string | null {
  const total = slice.totalLines === null ? '' : ` of ${slice.totalLines}`;
  const where = `${slice.info.path} version ${slice.info.seq}, lines ${slice.lineStart}-${slice.lineEnd}${total}`;
  if (slice.truncated) {
    if (slice.lineEnd < slice.lineStart) {
      return `[${where}: line ${slice.lineStart} alone is longer than the ${maxBytes}-byte read limit]`;
    }
    return `[${where}; more follows: continue with offset=${slice.lineEnd + 1}]`;
  }
  return slice.lineStart > 1 || slice.totalLines !== slice.lineEnd ? `[${where}]` : null;
}

const SliceOutput = {
  path: z.string(),
  version: SeqSchema,
  ...resultOf('readText').pick({
    text: true,
    lineStart: true,
    lineEnd: true,
    totalLines: true,
    truncated: true,
  }).shape,
  nextOffset: z.number().int().nullable().describe('pass as offset to read on; null at the end'),
};

const readTextFile = defineTool({
  name: 'read_text_file',
  title: 'Read text file',
  description:
    'Read a UTF-8 text file, whole or by lines: head (first N), tail (last N), or offset (1-based first line) with limit. ' +
    `Returns at most the server's read limit (default 256 KiB); when more follows, the result says so and gives nextOffset to continue. ` +
    'Pass version to read a past version (see list_versions). For images, audio or other binary files use read_media_file; for several files at once read_multiple_files; to find text without reading whole files use grep.',
  operation: 'readText',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    ...optionsOf('readText').pick({ head: true, tail: true, offset: true, limit: true }).shape,
    version: optionsOf('readText').shape.version.describe(VERSION),
  },
  output: SliceOutput,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const maxBytes = ctx.limits.maxReadBytes;
    const slice = await ctx.satchel.readText(ws, checkPath(args.path), {
      ...ctx.call(),
      head: args.head,
      tail: args.tail,
      offset: args.offset,
      limit: args.limit,
      version: args.version,
      maxBytes,
    });
    const note = sliceNote(slice, maxBytes);
    const content: ContentBlock[] = [{ type: 'text', text: slice.text }];
    if (note !== null) content.push({ type: 'text', text: note });
    return {
      structured: {
        path: slice.info.path,
        version: slice.info.seq,
        text: slice.text,
        lineStart: slice.lineStart,
        lineEnd: slice.lineEnd,
        totalLines: slice.totalLines,
        truncated: slice.truncated,
        nextOffset: nextOffset(slice),
      },
      text: slice.text,
      content,
    };
  },
});

async function readBytes(ctx: ToolContext, ws: string, path: string, version?: number) {
  const info = await ctx.satchel.stat(ws, path, version === undefined ? {} : { version });
  if (info.type !== 'file') {
    throw new SatchelError('INVALID_INPUT', `${info.path} is a directory`, { path: info.path });
  }
  if (info.size > ctx.limits.maxMediaBytes) {
    throw new SatchelError(
      'TOO_LARGE',
      `${info.path} has ${info.size} bytes; read_media_file returns files up to ${ctx.limits.maxMediaBytes} bytes`,
      { path: info.path, size: info.size, limit: ctx.limits.maxMediaBytes },
    );
  }
  const file = await ctx.satchel.readFile(ws, path, { ...ctx.call(), version: info.seq });
  const pieces: Buffer[] = [];
  for await (const piece of file.body) pieces.push(Buffer.from(piece as Uint8Array));
  return { info: file.info, data: Buffer.concat(pieces) };
}

const readMediaFile = defineTool({
  name: 'read_media_file',
  title: 'Read media file',
  description:
    'Read a binary file (image, audio, PDF, archive…) as base64: images and audio come back as image/audio content the model can see or hear, ' +
    'any other type as an embedded resource with its MIME type. Files above the server limit (default 10 MiB) are refused with TOO_LARGE. ' +
    'Use read_text_file for text.',
  // Also calls stat first, to refuse a file above the limit before reading it.
  operation: 'readFile',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    version: optionsOf('readFile').shape.version.describe(VERSION),
  },
  output: {
    path: z.string(),
    version: SeqSchema,
    mimeType: z.string(),
    size: z.number().int(),
    kind: z.enum(['image', 'audio', 'resource']),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const { info, data } = await readBytes(ctx, ws, checkPath(args.path), args.version);
    const mimeType = info.contentType ?? 'application/octet-stream';
    const base64 = data.toString('base64');
    const kind: 'image' | 'audio' | 'resource' = mimeType.startsWith('image/')
      ? 'image'
      : mimeType.startsWith('audio/')
        ? 'audio'
        : 'resource';
    const block: ContentBlock =
      kind === 'resource'
        ? { type: 'resource', resource: { uri: fileUri(ws, info.path), mimeType, blob: base64 } }
        : { type: kind, data: base64, mimeType };
    return {
      structured: { path: info.path, version: info.seq, mimeType, size: info.size, kind },
      text: '',
      content: [block],
    };
  },
});

const MAX_FILES = 50;

const FileResult = z.object({
  path: z.string(),
  version: SeqSchema.nullable(),
  text: z.string().nullable(),
  truncated: z.boolean(),
  nextOffset: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string() }).nullable(),
});

const readMultipleFiles = defineTool({
  name: 'read_multiple_files',
  title: 'Read multiple files',
  description:
    `Read up to ${MAX_FILES} text files in one call, in order. They share one read budget (the server's read limit, default 256 KiB): ` +
    'a file that does not fit is cut (truncated, with nextOffset for read_text_file) and files after the budget is spent are skipped. ' +
    'A file that cannot be read gets its own error and does not stop the others.',
  // readText once per file; the paths and the shared budget are this tool's own.
  operation: 'readText',
  input: {
    workspace: WorkspaceArg,
    paths: z.array(PathArg).min(1).max(MAX_FILES).describe('the files to read, in order'),
  },
  output: {
    files: z.array(FileResult),
    truncated: z.boolean().describe('true when the budget cut or skipped some file'),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    let budget = ctx.limits.maxReadBytes;
    const files: z.infer<typeof FileResult>[] = [];
    for (const path of args.paths) {
      if (budget <= 0) {
        files.push({
          path,
          version: null,
          text: null,
          truncated: true,
          nextOffset: 1,
          error: null,
        });
        continue;
      }
      try {
        const slice = await ctx.satchel.readText(ws, checkPath(path), {
          ...ctx.call(),
          maxBytes: budget,
        });
        budget -= Buffer.byteLength(slice.text);
        // Not even one line fitted in what was left of the budget: skipped, not empty.
        const skipped = slice.truncated && slice.lineEnd < slice.lineStart;
        if (skipped) budget = 0;
        files.push({
          path: slice.info.path,
          version: slice.info.seq,
          text: skipped ? null : slice.text,
          truncated: slice.truncated,
          nextOffset: nextOffset(slice),
          error: null,
        });
      } catch (error) {
        const { code, message, hint } = describeError(error);
        files.push({
          path,
          version: null,
          text: null,
          truncated: false,
          nextOffset: null,
          error: { code, message, hint },
        });
      }
    }
    const out = files.map((f) => {
      if (f.error !== null) return `${f.path}: ${f.error.code}: ${f.error.message}`;
      if (f.text === null) return `${f.path}: skipped (read budget spent; use read_text_file)`;
      const more = f.truncated
        ? `\n[cut by the read budget; continue with read_text_file offset=${f.nextOffset}]`
        : '';
      return `${f.path} (version ${f.version}):\n${f.text}${more}`;
    });
    return {
      structured: { files, truncated: files.some((f) => f.truncated) },
      text: out.join('\n---\n'),
    };
  },
});

function describeInfo(info: FileInfo): string {
  const lines = [
    `path: ${info.path}`,
    `type: ${info.type}`,
    `version: ${info.seq}`,
    `size: ${info.size}`,
    `contentType: ${info.contentType ?? '-'}`,
    `modified: ${info.modifiedAt} by ${info.author}`,
  ];
  if (info.hash !== null) lines.push(`sha256: ${info.hash}`);
  return lines.join('\n');
}

const getFileInfo = defineTool({
  name: 'get_file_info',
  title: 'Get file info',
  description:
    'Metadata of a file or directory without reading it: type, version (pass it as ifMatch to write safely), size, content type, SHA-256, who changed it and when. ' +
    'Cheaper than reading when you only need to know whether a file exists or changed.',
  operation: 'stat',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    version: optionsOf('stat').shape.version.describe(VERSION),
  },
  output: resultOf('stat').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const info = await ctx.satchel.stat(
      ws,
      checkPath(args.path),
      args.version === undefined ? {} : { version: args.version },
    );
    return { structured: info, text: describeInfo(info) };
  },
});

export const readTools: AnyTool[] = [readTextFile, readMediaFile, readMultipleFiles, getFileInfo];
export { describeInfo };
