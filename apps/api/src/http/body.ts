/** File bodies as streams both ways: uploads counted against a limit, downloads with backpressure. */
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { ApiEnv } from '../api-env.js';
import { checkDeclaredLength, tooLarge } from '../input.js';

async function* limited(
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    // Leaving the loop by throwing destroys the source, which stops reading the socket.
    if (size > maxBytes) throw tooLarge(maxBytes);
    yield chunk;
  }
}

/**
 * The request body as content for core, streamed and never buffered: at most one piece is in
 * flight, and core pulls as it stores. TOO_LARGE (413) when `Content-Length` declares more than
 * `maxBytes`, or as soon as a chunked body goes past it (core then keeps nothing).
 */
export function uploadBody(c: Context<ApiEnv>, maxBytes: number): AsyncIterable<Uint8Array> {
  checkDeclaredLength(c, maxBytes);
  return limited(c.get('body').stream(), maxBytes);
}

/**
 * A file body (a Node Readable from core) as a web stream for a Response. The web stream pulls
 * only when the socket drains, and cancelling it (the client went away) destroys the source.
 */
export function downloadBody(body: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(body) as ReadableStream<Uint8Array>;
}
