/**
 * An HTTP proxy on 127.0.0.1 between a client and a server (for tests: between S3BlobStore and
 * the S3 stand-in) that injects faults into the requests it is told to: a 500, no answer at all,
 * a reset connection, a response body cut short, or one flipped byte in either direction.
 */
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type Fault =
  | 'status-500'
  | 'hang'
  | 'reset'
  | 'truncate-response'
  | 'corrupt-response'
  | 'corrupt-request';

export interface FaultRule {
  readonly fault: Fault;
  /** Which requests: method and "key?query" (path without the bucket) as the proxy sees them. */
  readonly match: (method: string, target: string) => boolean;
  /** How many matching requests get the fault (default: all). */
  times?: number;
}

export interface FaultProxy {
  readonly endpoint: string;
  /** Faults by the request they apply to; the first rule that matches (and has times left) wins. */
  readonly rules: FaultRule[];
  /** Requests that got a fault, as "fault METHOD target". */
  readonly injected: string[];
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const rules: FaultRule[] = [];
  const injected: string[] = [];

  function pick(req: IncomingMessage): Fault | null {
    const path = (req.url ?? '/').split('/').slice(2).join('/');
    const rule = rules.find(
      (r) => (r.times === undefined || r.times > 0) && r.match(req.method ?? 'GET', path),
    );
    if (!rule) return null;
    if (rule.times !== undefined) rule.times--;
    injected.push(`${rule.fault} ${req.method} ${path}`);
    return rule.fault;
  }

  const server: Server = createServer((req, res) => {
    const fault = pick(req);
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') {
      req.resume();
      return;
    }
    if (fault === 'status-500') {
      req.resume();
      const body =
        '<?xml version="1.0"?><Error><Code>InternalError</Code><Message>injected</Message></Error>';
      res.writeHead(500, { 'Content-Type': 'application/xml', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        const length = Number(upstreamRes.headers['content-length'] ?? 0);
        if (fault === 'truncate-response' && length > 1) {
          let sent = 0;
          upstreamRes.on('data', (piece: Buffer) => {
            const room = Math.floor(length / 2) - sent;
            if (room > 0) res.write(piece.subarray(0, room));
            sent += piece.byteLength;
            if (sent >= length / 2) {
              upstreamRes.destroy();
              res.socket?.destroy();
            }
          });
          return;
        }
        const stream = fault === 'corrupt-response' ? flipOneByte(length) : null;
        (stream ? pipeline(upstreamRes, stream, res) : pipeline(upstreamRes, res)).catch(() =>
          res.destroy(),
        );
      },
    );
    out.on('error', () => res.destroy());
    const length = Number(req.headers['content-length'] ?? 0);
    const body = fault === 'corrupt-request' ? flipOneByte(length) : null;
    (body ? pipeline(req, body, out) : pipeline(req, out)).catch(() => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    rules,
    injected,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Passes bytes through, flipping the one in the middle of a `length`-byte stream. */
function flipOneByte(length: number): Transform {
  const at = Math.floor(length / 2);
  let seen = 0;
  return new Transform({
    transform(piece: Buffer, _encoding, done) {
      if (at >= seen && at < seen + piece.byteLength) {
        const copy = Buffer.from(piece);
        copy[at - seen] = (copy[at - seen] ?? 0) ^ 0x01;
        piece = copy;
      }
      seen += piece.byteLength;
      done(null, piece);
    },
  });
}
