/**
 * The OpenAI-compatible adapters against a local stand-in server (deterministic vectors and
 * answers), hybrid ranking, `ask` with and without a model, and no traffic without providers.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';
import { OpenAiEmbeddings } from './embeddings.js';
import { endpointUrl } from './http-json.js';
import { OpenAiChat } from './llm.js';

interface Seen {
  readonly path: string;
  readonly auth: string | undefined;
  readonly body: Record<string, unknown>;
}

/** Deterministic "meaning": felines are what a query for "dog" means here; cats are close. */
function vectorOf(text: string): number[] {
  if (text.includes('felines') || text.trim() === 'dog') return [1, 0];
  if (text.includes('cat')) return [0.8, 0.6];
  return [0, 1];
}

let server: Server;
let base: string;
let seen: Seen[];
let answer: string;
let failing: boolean;

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

beforeEach(async () => {
  seen = [];
  answer = 'It ran on Tuesday [1]. Something else [7]. Both [1, 9].';
  failing = false;
  server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      res.setHeader('Content-Type', 'application/json');
      if (failing) {
        res.statusCode = 503;
        res.end('{"error":"overloaded"}');
      } else if (req.url === '/v1/embeddings') {
        const input = body.input as string[];
        const data = input.map((text, index) => ({ index, embedding: vectorOf(text) }));
        res.end(JSON.stringify({ object: 'list', data, model: body.model }));
      } else if (req.url === '/v1/chat/completions') {
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer } }] }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.close();
  server.closeAllConnections();
  await once(server, 'close');
});

describe('the OpenAI-compatible adapters', () => {
  it('embed texts with the model and key, in order', async () => {
    const provider = new OpenAiEmbeddings({ url: `${base}/v1`, model: 'm-embed', apiKey: 'sk-1' });
    const vectors = await provider.embed(['a cat', 'felines']);
    expect(vectors.map((v) => [...v])).toEqual([
      [Math.fround(0.8), Math.fround(0.6)],
      [1, 0],
    ]);
    expect(seen).toEqual([
      {
        path: '/v1/embeddings',
        auth: 'Bearer sk-1',
        body: { model: 'm-embed', input: ['a cat', 'felines'] },
      },
    ]);
  });

  it('complete a chat, and report a failing provider as INTERNAL without the key', async () => {
    const chat = new OpenAiChat({ url: base, model: 'm-chat', apiKey: 'sk-secret' });
    expect(await chat.complete([{ role: 'user', content: 'hi' }])).toBe(answer);
    expect(seen[0]?.body).toMatchObject({ model: 'm-chat', temperature: 0 });
    failing = true;
    const error = await chat.complete([{ role: 'user', content: 'hi' }]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('503') });
    expect(String((error as Error).message)).not.toContain('sk-secret');
  });

  it('accept a base URL, a /v1 URL or the endpoint itself', () => {
    expect(endpointUrl('http://h:1', 'embeddings')).toBe('http://h:1/v1/embeddings');
    expect(endpointUrl('http://h:1/v1/', 'embeddings')).toBe('http://h:1/v1/embeddings');
    expect(endpointUrl('http://h:1/api/embeddings', 'embeddings')).toBe(
      'http://h:1/api/embeddings',
    );
  });
});

async function corpus(options: Parameters<typeof openTemp>[0] = {}) {
  const { satchel } = await openTemp(options);
  await satchel.writeFile('ws', '/a.md', 'The dog report: dog walked, dog slept, dog ate.\n');
  await satchel.writeFile('ws', '/b.md', 'Notes on felines, and one dog.\n');
  await satchel.writeFile('ws', '/c.md', 'A cat sat here.\n');
  return satchel;
}

describe('hybrid search', () => {
  it('reorders BM25 results when the vectors say so', async () => {
    const lexical = await corpus();
    const plain = await lexical.search('ws', 'dog');
    expect(plain.mode).toBe('bm25');
    expect(plain.items.map((h) => h.citation.path)).toEqual(['/a.md', '/b.md']);

    const embeddings = new OpenAiEmbeddings({ url: base, model: 'm-embed' });
    const hybrid = await corpus({ embeddings });
    const fused = await hybrid.search('ws', 'dog');
    expect(fused.mode).toBe('hybrid');
    expect(fused.items.map((h) => h.citation.path)).toEqual(['/b.md', '/a.md', '/c.md']);
    // A passage found by meaning alone still has a citation and a snippet.
    expect(fused.items[2]).toMatchObject({
      citation: { path: '/c.md', lineStart: 1, lineEnd: 1 },
      snippet: 'A cat sat here.',
    });
    expect(await hybrid.searchStatus('ws')).toMatchObject({
      vectors: { model: 'm-embed', pending: 0, error: null },
    });
  });

  it('stays lexical when the provider fails, and says vectors are behind', async () => {
    failing = true;
    const satchel = await corpus({ embeddings: new OpenAiEmbeddings({ url: base, model: 'm' }) });
    const result = await satchel.search('ws', 'dog');
    expect(result.mode).toBe('bm25');
    expect(result.items[0]?.citation.path).toBe('/a.md');
    const status = await satchel.searchStatus('ws');
    expect(status.vectors?.pending).toBe(3);
    expect(status.vectors?.error).toContain('503');
  });
});

describe('ask', () => {
  it('answers from the passages and drops citations of passages it was not given', async () => {
    const llm = new OpenAiChat({ url: base, model: 'm-chat' });
    const satchel = await corpus({ llm });
    const result = await satchel.ask('ws', 'what about the dog?');
    expect(result.model).toBe('m-chat');
    expect(result.passages.map((p) => p.citation.path)).toEqual(['/a.md', '/b.md']);
    expect(result.answer).toBe('It ran on Tuesday [1]. Something else. Both [1].');
    expect(result.dropped).toEqual([7, 9]);
    expect(result.citations).toEqual([{ n: 1, path: '/a.md', seq: 1, lineStart: 1, lineEnd: 1 }]);
    const prompt = JSON.stringify(seen.at(-1)?.body);
    expect(prompt).toContain('[1] /a.md (version 1, lines 1-1)');
    expect(prompt).toContain('what about the dog?');
  });

  it('returns the passages without a model, and nothing leaves the machine', async () => {
    const realFetch = globalThis.fetch;
    let fetches = 0;
    globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
      fetches++;
      return realFetch(...args);
    }) as typeof fetch;
    try {
      const satchel = await corpus();
      const result = await satchel.ask('ws', 'dog');
      expect(result).toMatchObject({
        answer: null,
        model: null,
        note: 'no language model is configured',
        citations: [],
      });
      expect(result.passages.length).toBe(2);
      await satchel.search('ws', 'dog');
      await satchel.reindex('ws');
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetches).toBe(0);
    expect(seen).toEqual([]);
  });

  it('reports a failing model in the note, with the passages', async () => {
    const satchel = await corpus({ llm: new OpenAiChat({ url: base, model: 'm' }) });
    failing = true;
    const result = await satchel.ask('ws', 'dog');
    expect(result.answer).toBeNull();
    expect(result.note).toContain('the language model failed');
    expect(result.passages.length).toBe(2);
    await expect(satchel.ask('ws', '')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
