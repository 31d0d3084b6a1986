/** Byte-counting pass-through for web streams: request and response bodies, never buffered. */

/** How a counted stream ended: read to its end, or cancelled/failed part-way (client gone). */
export type StreamEnd = (bytes: number, complete: boolean) => void;

export interface CountHooks {
  /** Called with the running total after each chunk. */
  readonly onChunk?: (bytes: number) => void;
  /** Called exactly once, with the total, when the stream ends for whatever reason. */
  readonly onEnd?: StreamEnd;
}

/**
 * `source` as a new stream that counts the bytes passing through and calls `onEnd` exactly once,
 * when the source is exhausted, fails, or the reader cancels. It pulls only when its own reader
 * asks (high-water mark 0), so backpressure and cancellation reach the source unchanged.
 */
export function counted(
  source: ReadableStream<Uint8Array>,
  { onChunk, onEnd }: CountHooks,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let bytes = 0;
  let ended = false;
  const end = (complete: boolean): void => {
    if (ended) return;
    ended = true;
    onEnd?.(bytes, complete);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            end(true);
            return;
          }
          bytes += value.byteLength;
          onChunk?.(bytes);
          controller.enqueue(value);
        } catch (error) {
          end(false);
          controller.error(error);
        }
      },
      async cancel(reason) {
        end(false);
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
