/**
 * `readText` over a byte stream: lines by head, tail or offset/limit, bounded by `maxBytes`.
 * The one implementation of its rules: the engine's `readText` (read.ts) slices a stored file
 * with it, and RemoteSatchel (which has no text route) slices the downloaded bytes with it.
 */
import type { Readable } from 'node:stream';
import { SatchelError } from './errors.js';
import type { FileInfo, ReadTextOptions, TextSlice } from './schemas/index.js';

const DEFAULT_TEXT_BYTES = 1024 * 1024;

/** INVALID_INPUT for option combinations `readText` refuses, before anything is read. */
export function checkTextOptions(options: ReadTextOptions): void {
  if (options.tail !== undefined && (options.head !== undefined || options.offset !== undefined)) {
    throw new SatchelError('INVALID_INPUT', 'tail cannot be combined with head or offset', {
      field: 'tail',
    });
  }
  if (options.head !== undefined && options.limit !== undefined) {
    throw new SatchelError('INVALID_INPUT', 'use head or limit, not both', { field: 'head' });
  }
  if (options.column !== undefined && options.tail !== undefined) {
    throw new SatchelError('INVALID_INPUT', 'column continues a line from offset, not a tail', {
      field: 'column',
    });
  }
}

/**
 * The longest start of `line` within `maxBytes` bytes, cut between characters, and never empty
 * for a non-empty line (a reader that follows nextColumn always moves on).
 */
function cutLine(line: string, maxBytes: number): string {
  const bytes = Buffer.from(line);
  if (bytes.byteLength <= maxBytes) return line;
  let end = maxBytes;
  // Back off to the first byte of a UTF-8 sequence: 10xxxxxx bytes continue one.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  if (end > 0) return bytes.subarray(0, end).toString('utf8');
  const first = line.codePointAt(0) ?? 0;
  return String.fromCodePoint(first);
}

/**
 * The slice of `body` (the content of `info`) that `options` select; stops reading (and
 * destroys `body`) as soon as the slice is complete. INVALID_INPUT for binary content.
 */
export async function sliceText(
  info: FileInfo,
  body: Readable | readonly Uint8Array[],
  options: ReadTextOptions,
): Promise<TextSlice> {
  const maxBytes = options.maxBytes ?? DEFAULT_TEXT_BYTES;
  const first = options.offset ?? 1;
  const count = options.head ?? options.limit ?? Number.POSITIVE_INFINITY;
  // Lines arrive a chunk's worth at a time: one await per chunk, not one per line.
  const batches = splitLines(body, info.path);
  try {
    if (options.tail !== undefined) {
      const ring: string[] = [];
      let total = 0;
      for await (const batch of batches) {
        total += batch.length;
        ring.push(...batch);
        if (ring.length > options.tail) ring.splice(0, ring.length - options.tail);
      }
      const { text, kept } = capText(ring, maxBytes);
      const last = ring[ring.length - 1];
      if (kept === 0 && last !== undefined) {
        // Not even the last line fits: its start, and where to read on.
        const part = cutLine(last, maxBytes);
        return {
          info,
          text: part,
          lineStart: total,
          lineEnd: total,
          totalLines: total,
          truncated: true,
          nextColumn: part.length,
        };
      }
      return {
        info,
        text,
        lineStart: total - kept + 1,
        lineEnd: total,
        totalLines: total,
        truncated: kept < ring.length,
        nextColumn: null,
      };
    }
    const column = options.column ?? 0;
    const selected: string[] = [];
    let bytes = 0;
    let index = 0;
    let truncated = false;
    let nextColumn: number | null = null;
    scan: for await (const batch of batches) {
      for (const whole of batch) {
        index++;
        if (index < first) continue;
        const line = index === first && column > 0 ? whole.slice(column) : whole;
        const size = Buffer.byteLength(line);
        if (selected.length === count) {
          truncated = true;
          break scan;
        }
        if (bytes + size > maxBytes) {
          truncated = true;
          // A line longer than the whole budget is returned in parts, never skipped.
          if (selected.length === 0 && line.length > 0) {
            const part = cutLine(line, maxBytes);
            selected.push(part);
            nextColumn = (index === first ? column : 0) + part.length;
          }
          break scan;
        }
        selected.push(line);
        bytes += size;
      }
    }
    return {
      info,
      text: selected.join(''),
      lineStart: first,
      lineEnd: first + selected.length - 1,
      totalLines: truncated ? null : index,
      truncated,
      nextColumn,
    };
  } finally {
    if (!Array.isArray(body)) (body as Readable).destroy();
  }
}

function capText(lines: readonly string[], maxBytes: number): { text: string; kept: number } {
  // Keep the end: a tail that does not fit loses its first lines.
  let bytes = 0;
  let kept = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = Buffer.byteLength(lines[i] ?? '');
    if (bytes + size > maxBytes) break;
    bytes += size;
    kept++;
  }
  return { text: lines.slice(lines.length - kept).join(''), kept };
}

/**
 * Splits a UTF-8 byte stream into lines, each with its `\n`; a last line without one is yielded
 * as it is. Throws TypeError (from the fatal decoder) on invalid UTF-8.
 */
export async function* utf8Lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  for await (const batch of utf8LineBatches(body)) yield* batch;
}

/** The lines of utf8Lines, in one array per piece of `body` that completes at least one. */
async function* utf8LineBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let partial = '';
  for await (const piece of body) {
    const text = partial + decoder.decode(piece, { stream: true });
    const lines: string[] = [];
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      lines.push(text.slice(from, nl + 1));
      from = nl + 1;
    }
    partial = text.slice(from);
    if (lines.length > 0) yield lines;
  }
  partial += decoder.decode();
  if (partial.length > 0) yield [partial];
}

/** Batches of lines with their terminators; INVALID_INPUT if the content is not UTF-8 text. */
async function* splitLines(
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  path: string,
): AsyncGenerator<string[]> {
  const binary = () =>
    new SatchelError('INVALID_INPUT', `${path} is a binary file; read it as bytes instead`, {
      path,
      reason: 'binary',
    });
  // A NUL byte in the first 8 KiB marks binary content even when it decodes as UTF-8.
  async function* sniffed(): AsyncGenerator<Uint8Array> {
    let seen = 0;
    for await (const piece of body) {
      if (seen < 8192 && piece.subarray(0, 8192 - seen).includes(0)) throw binary();
      seen += piece.byteLength;
      yield piece;
    }
  }
  try {
    yield* utf8LineBatches(sniffed());
  } catch (error) {
    if (error instanceof TypeError) throw binary();
    throw error;
  }
}
