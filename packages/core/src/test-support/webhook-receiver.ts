/** Test support: a real webhook receiver on 127.0.0.1 that records every request it gets. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The status the receiver answered with. */
  readonly status: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly requests: Received[];
  close(): Promise<void>;
}

const open: Receiver[] = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/**
 * Listens on 127.0.0.1; `answer(n)` gives the status of the n-th request (0-based). Closed after
 * the test.
 */
export async function startReceiver(answer: (n: number) => number = () => 200): Promise<Receiver> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = answer(requests.length);
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : `nope ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(receiver);
  return receiver;
}

/** Polls `check` until it returns a value other than undefined/false (throws after `ms`). */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
