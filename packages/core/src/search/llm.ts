/**
 * Chat providers for `ask`: the `ChatProvider` interface and an adapter for any
 * OpenAI-compatible `POST /v1/chat/completions` endpoint. Nothing here runs unless a provider
 * is passed to `openSatchel`.
 */
import { SatchelError } from '@satchel/client/errors.js';
import type { OpenAiCompatibleOptions } from './embeddings.js';
import { endpointUrl, postJson } from './http-json.js';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface ChatProvider {
  readonly model: string;
  /** The model's reply to `messages`. Throws when the provider fails. */
  complete(messages: readonly ChatMessage[]): Promise<string>;
}

interface CompletionResponse {
  readonly choices?: ReadonlyArray<{ readonly message?: { readonly content?: unknown } }>;
}

/** `POST <url>/v1/chat/completions {model, messages, temperature: 0}` → `choices[0].message.content`. */
export class OpenAiChat implements ChatProvider {
  readonly model: string;
  readonly #url: string;
  readonly #options: OpenAiCompatibleOptions;

  constructor(options: OpenAiCompatibleOptions) {
    this.model = options.model;
    this.#url = endpointUrl(options.url, 'chat/completions');
    this.#options = options;
  }

  async complete(messages: readonly ChatMessage[]): Promise<string> {
    const body = (await postJson(
      this.#url,
      { model: this.model, messages, temperature: 0 },
      { timeoutMs: 120_000, ...this.#options },
    )) as CompletionResponse | undefined;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') {
      throw new SatchelError('INTERNAL', `the language model at ${this.#url} returned no message`);
    }
    return content;
  }
}
