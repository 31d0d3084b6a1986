/** Test helper: reads a Server-Sent Events response incrementally, as an EventSource would. */

export interface SseMessage {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

/** One SSE response being read: whole messages in order, and the comments seen so far. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  readonly #queue: SseMessage[] = [];
  /** Comment lines (`: keep-alive`) without their colon. */
  readonly comments: string[] = [];
  /** The id of the newest message that carried one (what EventSource sends as Last-Event-ID). */
  lastEventId: string | undefined;

  constructor(response: Response) {
    if (response.body === null) throw new Error('an SSE response has a body');
    this.#reader = response.body.getReader();
  }

  /** The next message, reading as much as needed; rejects if the stream ends first. */
  async next(timeoutMs = 10_000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.#queue.shift();
      if (message !== undefined) return message;
      if (Date.now() > deadline) throw new Error('no SSE message in time');
      const { done, value } = await this.#reader.read();
      if (done) throw new Error('the SSE stream ended');
      this.#feed(this.#decoder.decode(value, { stream: true }));
    }
  }

  /** The next `count` messages. */
  async take(count: number): Promise<SseMessage[]> {
    const out: SseMessage[] = [];
    while (out.length < count) out.push(await this.next());
    return out;
  }

  /** Reads until a comment arrives (a heartbeat). */
  async nextComment(): Promise<string> {
    const seen = this.comments.length;
    while (this.comments.length === seen) {
      const { done, value } = await this.#reader.read();
      if (done) throw new Error('the SSE stream ended');
      this.#feed(this.#decoder.decode(value, { stream: true }));
    }
    return this.comments[seen] ?? '';
  }

  /** Disconnects, as a client going away does. */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }

  #feed(text: string): void {
    this.#buffer += text;
    for (let end = this.#buffer.indexOf('\n\n'); end !== -1; end = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
        else if (line.startsWith('id: ')) id = line.slice(4);
      }
      if (data.length === 0) continue;
      if (id !== undefined) this.lastEventId = id;
      this.#queue.push({ event, data: data.join('\n'), id });
    }
  }
}
