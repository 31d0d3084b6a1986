/** Reading a file version's bytes through the facade, and the headers its raw response carries. */
import { Readable } from 'node:stream';
import type { FileStream, Satchel } from '@satchel/core';
import { create as contentDisposition } from 'content-disposition';
import { inlineImageType, isActive } from './preview.js';
import { PDF_CSP, RAW_CSP } from './security.js';

/** The first `limit` bytes of a version (all of it when smaller), as one buffer. */
export async function readHead(
  satchel: Satchel,
  ws: string,
  path: string,
  version: number | undefined,
  size: number,
  limit: number,
): Promise<Uint8Array> {
  if (size === 0) return new Uint8Array();
  const stream = await satchel.readFile(ws, path, {
    ...(version === undefined ? {} : { version }),
    range: { start: 0, end: Math.min(size, limit) },
  });
  if (stream.bytes !== undefined) return stream.bytes;
  const chunks: Buffer[] = [];
  for await (const chunk of stream.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return new Uint8Array(Buffer.concat(chunks));
}

/** A file stream as a web response body. */
export function bodyOf(stream: FileStream): ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> {
  // Never a SharedArrayBuffer: the engine's buffers are Node's own.
  if (stream.bytes !== undefined) return stream.bytes as Uint8Array<ArrayBuffer>;
  return Readable.toWeb(stream.body) as ReadableStream<Uint8Array>;
}

/**
 * Headers of a raw content response. Only pixel images and PDFs are ever shown inline, each
 * under a CSP with no sources; everything else — HTML, SVG, XML, scripts, archives, text —
 * downloads (`attachment`) as its own type or as octet-stream, never sniffed.
 */
export function rawHeaders(
  path: string,
  contentType: string | null,
  size: number,
  download: boolean,
): Record<string, string> {
  const name = path.split('/').pop() || 'file';
  const image = inlineImageType(path);
  const pdf = !isActive(path, contentType) && /\.pdf$/i.test(path);
  const inline = !download && (image !== null || pdf);
  const type = image ?? (pdf ? 'application/pdf' : 'application/octet-stream');
  return {
    'Content-Type': type,
    'Content-Length': String(size),
    'Content-Disposition': contentDisposition(name, { type: inline ? 'inline' : 'attachment' }),
    'Content-Security-Policy': pdf && inline ? PDF_CSP : RAW_CSP,
    'Cache-Control': 'private, no-store',
  };
}
