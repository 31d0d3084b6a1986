/**
 * Embedding providers: the `EmbeddingProvider` interface the search index uses for vectors, and
 * an adapter for any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, Ollama, vLLM,
 * llama.cpp, LM Studio, …). Nothing here runs unless a provider is passed to `openSatchel`.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { endpointUrl, postJson } from './http-json.js';

/** Turns texts into vectors; the index stores them unit-length, so any scale will do. */
export interface EmbeddingProvider {
  /** Names the model in status output. */
  readonly model: string;
  /** One vector per text, in order, all of the same length. Throws when the provider fails. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface OpenAiCompatibleOptions {
  /** Base URL (`http://host:port`, `…/v1`) or the full endpoint URL. */
  readonly url: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer <key>` when given. */
  readonly apiKey?: string;
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
}

interface EmbeddingsResponse {
  readonly data?: ReadonlyArray<{ readonly index?: number; readonly embedding?: unknown }>;
}

/** `POST <url>/v1/embeddings {model, input: [...]}` → `data[i].embedding`. */
export class OpenAiEmbeddings implements EmbeddingProvider {
  readonly model: string;
  readonly #url: string;
  readonly #options: OpenAiCompatibleOptions;

  constructor(options: OpenAiCompatibleOptions) {
    this.model = options.model;
    this.#url = endpointUrl(options.url, 'embeddings');
    this.#options = options;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const body = (await postJson(this.#url, { model: this.model, input: texts }, this.#options)) as
      | EmbeddingsResponse
      | undefined;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== texts.length) {
      throw new SatchelError(
        'INTERNAL',
        `the embedding provider at ${this.#url} returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${texts.length} texts`,
      );
    }
    const vectors: Float32Array[] = new Array(texts.length);
    data.forEach((item, i) => {
      const index = typeof item.index === 'number' ? item.index : i;
      const values = item.embedding;
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'number')) {
        throw new SatchelError(
          'INTERNAL',
          `the embedding provider at ${this.#url} returned a malformed vector`,
        );
      }
      vectors[index] = Float32Array.from(values as number[]);
    });
    return vectors;
  }
}

/** The vector scaled to unit length (cosine similarity becomes a dot product), as bytes. */
export function vectorBytes(vector: Float32Array): Uint8Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = (vector[i] ?? 0) * scale;
  return new Uint8Array(unit.buffer);
}

/** A stored vector back as floats. */
export function bytesVector(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(bytes.byteLength / 4));
}

/** Dot product of unit vectors: their cosine similarity (0 when the lengths differ). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}
