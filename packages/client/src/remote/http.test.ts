/**
 * HttpClient against a real socket server that hangs up on the first request of each connection
 * it is told to: the keep-alive race of a server closing an idle connection as a request goes out.
 */
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from './http.js';

let server: Server | undefined;

afterEach(async () => {
  server?.close();
  server = undefined;
});

/** A server that closes the first `drops` requests' connections unanswered, then answers `{}`. */
async function dropping(drops: number): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  server = createServer((socket: Socket) => {
    socket.on('data', () => {
      requests++;
      if (requests <= drops) return void socket.destroy();
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, requests: () => requests };
}

describe('HttpClient', () => {
  it('sends a read again, once, when the server closed the connection on it', async () => {
    const { url, requests } = await dropping(1);
    const client = new HttpClient({ url, token: 't' });
    const res = await client.send({ method: 'GET', path: '/v1/x' });
    expect(await res.json()).toEqual({});
    expect(requests()).toBe(2);
  });

  it('gives up after the second closed connection, and never sends a write twice', async () => {
    const twice = await dropping(2);
    const reader = new HttpClient({ url: twice.url, token: 't' });
    await expect(reader.send({ method: 'GET', path: '/v1/x' })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('cannot reach'),
    });
    expect(twice.requests()).toBe(2);
    server?.close();

    const once = await dropping(1);
    const writer = new HttpClient({ url: once.url, token: 't' });
    await expect(
      writer.send({ method: 'POST', path: '/v1/x', json: { a: 1 } }),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(once.requests()).toBe(1);
  });
});
