/** Reading tools: read_text_file, read_media_file, read_multiple_files, get_file_info. */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { type FileInfo, SatchelError, type TextSlice } from '@satchel/core';
import { SeqSchema } from '@satchel/core/schemas';
import { z } from 'zod';
import { describeError } from '../errors.js';
import {
  type AnyTool,
  AtArg,
  checkPath,
  defineTool,
  optionsOf,
  PathArg,
  resultOf,
  WorkspaceArg,
} from '../tool.js';
import { fileUri } from '../uri.js';

/** Where to read on: the line (and, inside a cut line, the column), or null at the end. */
function continuation(slice: TextSlice): { nextOffset: number | null; nextColumn: number | null } {
  if (slice.nextColumn !== null) return { nextOffset: slice.lineEnd, nextColumn: slice.nextColumn };
  const more = slice.totalLines === null || slice.lineEnd < slice.totalLines;
  return { nextOffset: slice.truncated && more ? slice.lineEnd + 1 : null, nextColumn: null };
}

/**
 * One line for the model: the version to pass as ifMatch, which part of the file this is, and
 * how to read on. Always given, so that a whole read carries its version too.
 */
function sliceNote(
  slice: TextSlice,
  offset: number | undefined,
  at: number | string | undefined,
): string {
  const { path, seq } = slice.info;
  const head =
    at === undefined
      ? `[${path} seq ${seq} (pass ifMatch ${seq} to write it)`
      : `[${path} seq ${seq}, as it was at ${at}`;
  const total = slice.totalLines === null ? '' : ` of ${slice.totalLines}`;
  if (slice.lineEnd < slice.lineStart) {
    return offset !== undefined && slice.totalLines !== null && offset > slice.totalLines
      ? `${head}; offset ${offset} is past the end: the file has ${slice.totalLines} lines]`
      : `${head}; empty]`;
  }
  const lines = `lines ${slice.lineStart}-${slice.lineEnd}${total}`;
  const next = continuation(slice);
  if (next.nextColumn !== null) {
    return `${head}; ${lines}; line ${slice.lineEnd} is cut here: continue with offset=${next.nextOffset} column=${next.nextColumn} version=${seq}, or fetch the whole file with create_download_url]`;
  }
  if (next.nextOffset !== null) {
    return `${head}; ${lines}; more follows: continue with offset=${next.nextOffset} version=${seq}]`;
  }
  const cut = slice.truncated ? '; earlier lines left out to stay within the read limit' : '';
  return `${head}; ${lines}${cut}]`;
}

const SliceOutput = {
  path: z.string(),
  seq: SeqSchema,
  ...resultOf('readText').pick({
    text: true,
    lineStart: true,
    lineEnd: true,
    totalLines: true,
    truncated: true,
    nextColumn: true,
  }).shape,
  nextOffset: z.number().int().nullable(),
};

const readTextFile = defineTool({
  name: 'read_text_file',
  title: 'Read text file',
  description:
    'Read a text file, whole or by lines (head, tail, offset+limit), up to 256 KiB; ends with its seq and any nextOffset.',
  operation: 'readText',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    head: optionsOf('readText').shape.head,
    tail: optionsOf('readText').shape.tail,
    offset: optionsOf('readText').shape.offset.describe('first line, 1-based'),
    limit: optionsOf('readText').shape.limit.describe('lines'),
    column: optionsOf('readText').shape.column.describe('a nextColumn, with offset'),
    version: optionsOf('readText').shape.version,
    at: AtArg,
  },
  output: SliceOutput,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const slice = await ctx.satchel.readText(ws, checkPath(args.path), {
      ...ctx.call(),
      head: args.head,
      tail: args.tail,
      offset: args.offset,
      limit: args.limit,
      column: args.column,
      version: args.version,
      at: args.at,
      maxBytes: ctx.limits.maxReadBytes,
    });
    const content: ContentBlock[] = [{ type: 'text', text: slice.text }];
    content.push({ type: 'text', text: sliceNote(slice, args.offset, args.at) });
    return {
      structured: {
        path: slice.info.path,
        seq: slice.info.seq,
        text: slice.text,
        lineStart: slice.lineStart,
        lineEnd: slice.lineEnd,
        totalLines: slice.totalLines,
        truncated: slice.truncated,
        nextColumn: slice.nextColumn,
        nextOffset: continuation(slice).nextOffset,
      },
      text: slice.text,
      content,
    };
  },
});

// Content types read_media_file sends back to read_text_file: base64 of text helps nobody.
const TEXT_TYPE = /^text\/|^application\/(?:json|xml|javascript|x-ndjson|yaml)|\+(?:json|xml)$/;

const readMediaFile = defineTool({
  name: 'read_media_file',
  title: 'Read media file',
  description:
    'Read an image, audio or other binary file as base64; above 10 MiB a resource_link (use create_download_url).',
  // Also calls stat first, to refuse text and answer large files with a link before reading.
  operation: 'readFile',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    version: optionsOf('readFile').shape.version,
  },
  output: {
    path: z.string(),
    seq: SeqSchema,
    mimeType: z.string(),
    size: z.number().int(),
    kind: z.enum(['image', 'audio', 'resource', 'link']),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const path = checkPath(args.path);
    const info = await ctx.satchel.stat(
      ws,
      path,
      args.version === undefined ? {} : { version: args.version },
    );
    if (info.type !== 'file') {
      throw new SatchelError('INVALID_INPUT', `${info.path} is a directory`, {
        path: info.path,
        reason: 'directory',
      });
    }
    const mimeType = info.contentType ?? 'application/octet-stream';
    if (TEXT_TYPE.test(mimeType)) {
      throw new SatchelError('INVALID_INPUT', `${info.path} is text (${mimeType}), not media`, {
        path: info.path,
        reason: 'text_file',
      });
    }
    const structured = { path: info.path, seq: info.seq, mimeType, size: info.size };
    const uri = fileUri(ws, info.path);
    if (info.size > ctx.limits.maxMediaBytes) {
      // Too large for the conversation: a link, and the tool that moves the bytes outside it.
      return {
        structured: { ...structured, kind: 'link' as const },
        text: '',
        content: [
          { type: 'resource_link', uri, name: info.path, mimeType, size: info.size },
          {
            type: 'text',
            text: `${info.path} (seq ${info.seq}) has ${info.size} bytes, more than the ${ctx.limits.maxMediaBytes} returned inline: call create_download_url and fetch it with curl -o`,
          },
        ],
      };
    }
    const file = await ctx.satchel.readFile(ws, path, { ...ctx.call(), version: info.seq });
    const pieces: Buffer[] = [];
    for await (const piece of file.body) pieces.push(Buffer.from(piece as Uint8Array));
    const base64 = Buffer.concat(pieces).toString('base64');
    const kind: 'image' | 'audio' | 'resource' = mimeType.startsWith('image/')
      ? 'image'
      : mimeType.startsWith('audio/')
        ? 'audio'
        : 'resource';
    const block: ContentBlock =
      kind === 'resource'
        ? { type: 'resource', resource: { uri, mimeType, blob: base64 } }
        : { type: kind, data: base64, mimeType };
    return { structured: { ...structured, kind }, text: '', content: [block] };
  },
});

const MAX_FILES = 50;

const FileResult = z.object({
  path: z.string(),
  seq: SeqSchema.nullable(),
  text: z.string().nullable(),
  truncated: z.boolean(),
  nextOffset: z.number().int().nullable(),
  nextColumn: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string() }).nullable(),
});
type FileResult = z.infer<typeof FileResult>;

function failed(path: string, error: unknown): FileResult {
  const { code, message, hint } = describeError(error, 'read_multiple_files');
  const none = { seq: null, text: null, truncated: false, nextOffset: null, nextColumn: null };
  return { path, ...none, error: { code, message, hint } };
}

/**
 * Which files are read whole: the smallest first, while they fit in `budget` together. What is
 * left goes to the first other file, cut; the rest are skipped. So one huge file does not crowd
 * out the small ones, and every byte of the budget is used.
 */
function wholeReads(infos: readonly (FileInfo | null)[], budget: number): Set<number> {
  const order = infos
    .map((info, i) => ({ info, i }))
    .filter((x): x is { info: FileInfo; i: number } => x.info !== null)
    .sort((a, b) => a.info.size - b.info.size);
  const whole = new Set<number>();
  let left = budget;
  for (const { info, i } of order) {
    if (info.size > left) break;
    whole.add(i);
    left -= info.size;
  }
  return whole;
}

const readMultipleFiles = defineTool({
  name: 'read_multiple_files',
  title: 'Read multiple files',
  description: `Read up to ${MAX_FILES} text files within one read limit: smallest whole, one cut (nextOffset), rest skipped; errors per file.`,
  // stat, then readText, once per file; the paths and the shared budget are this tool's own.
  operation: 'readText',
  input: {
    workspace: WorkspaceArg,
    paths: z.array(PathArg).min(1).max(MAX_FILES),
  },
  output: {
    files: z.array(FileResult),
    truncated: z.boolean(),
  },
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const infos: (FileInfo | null)[] = [];
    const files: (FileResult | null)[] = [];
    for (const path of args.paths) {
      try {
        const info = await ctx.satchel.stat(ws, checkPath(path));
        if (info.type !== 'file') {
          throw new SatchelError('INVALID_INPUT', `${info.path} is a directory`, {
            path: info.path,
            reason: 'directory',
          });
        }
        infos.push(info);
        files.push(null);
      } catch (error) {
        infos.push(null);
        files.push(failed(path, error));
      }
    }
    const whole = wholeReads(infos, ctx.limits.maxReadBytes);
    let left =
      ctx.limits.maxReadBytes - [...whole].reduce((sum, i) => sum + (infos[i]?.size ?? 0), 0);
    const out: FileResult[] = [];
    for (const [i, info] of infos.entries()) {
      const done = files[i];
      if (done) {
        out.push(done);
        continue;
      }
      if (info === null) continue;
      const cut = !whole.has(i);
      if (cut && left <= 0) {
        const skipped = { text: null, truncated: true, nextOffset: 1, nextColumn: null };
        out.push({ path: info.path, seq: info.seq, ...skipped, error: null });
        continue;
      }
      try {
        const slice = await ctx.satchel.readText(ws, info.path, {
          ...ctx.call(),
          version: info.seq,
          maxBytes: cut ? left : Math.max(info.size, 1),
        });
        if (cut) left = 0;
        out.push({
          path: info.path,
          seq: info.seq,
          text: slice.text,
          truncated: slice.truncated,
          ...continuation(slice),
          error: null,
        });
      } catch (error) {
        out.push(failed(info.path, error));
      }
    }
    const text = out.map((f) => {
      if (f.error !== null) return `${f.path}: ${f.error.code}: ${f.error.message}`;
      if (f.text === null) {
        return `${f.path} (seq ${f.seq}): skipped, the read limit is spent; read it with read_text_file`;
      }
      const column = f.nextColumn === null ? '' : ` column=${f.nextColumn}`;
      const more = f.truncated
        ? `\n[cut by the read limit; continue with read_text_file offset=${f.nextOffset}${column} version=${f.seq}]`
        : '';
      return `${f.path} (seq ${f.seq}):\n${f.text}${more}`;
    });
    return {
      structured: { files: out, truncated: out.some((f) => f.truncated) },
      text: text.join('\n---\n'),
    };
  },
});

function describeInfo(info: FileInfo): string {
  const lines = [
    `path: ${info.path}`,
    `type: ${info.type}`,
    `seq: ${info.seq} (the version; pass it as ifMatch)`,
    `size: ${info.size}`,
    `contentType: ${info.contentType ?? '-'}`,
    `modified: ${info.modifiedAt} by ${info.author}`,
  ];
  if (info.hash !== null) lines.push(`hash: ${info.hash} (SHA-256)`);
  return lines.join('\n');
}

const getFileInfo = defineTool({
  name: 'get_file_info',
  title: 'Get file info',
  description: 'Metadata without reading: type, seq, size, content type, SHA-256, author, time.',
  operation: 'stat',
  input: {
    workspace: WorkspaceArg,
    path: PathArg,
    version: optionsOf('stat').shape.version,
    at: AtArg,
  },
  output: resultOf('stat').shape,
  async run(args, ctx) {
    const ws = await ctx.workspace(args.workspace);
    const info = await ctx.satchel.stat(ws, checkPath(args.path), {
      version: args.version,
      at: args.at,
    });
    return { structured: info, text: describeInfo(info) };
  },
});

export const readTools: AnyTool[] = [readTextFile, readMediaFile, readMultipleFiles, getFileInfo];
export { describeInfo };
