/**
 * Test support: the transcript of a scripted agent session — every call and what the model saw
 * of its result, shortened, with volatile values (times, ids, codes, ports, hashes, connection
 * labels) replaced by placeholders, so the text is the same on every run and a change in what
 * agents see shows up as a diff of the fixture in review.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

export interface Agent {
  /** How the transcript names it: "A", "B", "dana". */
  readonly name: string;
  /** The transport, for the reader: "stdio", "http". */
  readonly via: string;
  readonly client: Client;
}

export type Result = CallToolResult & { structuredContent?: Record<string, unknown> };

const MAX_LINES = 14;
const MAX_LINE = 320;
const MAX_ARG = 72;

/** What a model sees of one content block. */
function render(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `[resource_link ${block.uri} ${block.mimeType ?? ''} ${block.size ?? '?'} bytes]`;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${block.data.length} base64 characters]`;
    case 'resource':
      return `[resource ${block.resource.uri}]`;
  }
}

function cutLine(line: string): string {
  return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE)}… (${line.length} chars)`;
}

/** At most MAX_LINES lines (each cut at MAX_LINE when the transcript is made): the head and the tail of a longer text, and how much was left out. */
function shorten(text: string): string {
  const lines = text.split('\n');
  if (lines.length <= MAX_LINES) return lines.join('\n');
  const left = lines.length - MAX_LINES + 2;
  return [...lines.slice(0, MAX_LINES - 4), `… (${left} more lines)`, ...lines.slice(-2)].join(
    '\n',
  );
}

function shortArgs(args: Record<string, unknown>): string {
  return JSON.stringify(args, (_key, value: unknown) =>
    typeof value === 'string' && value.length > MAX_ARG
      ? `${value.slice(0, MAX_ARG - 12)}… (${value.length} chars)`
      : value,
  );
}

export class Transcript {
  readonly #entries: string[] = [];
  readonly #masks: Array<[string, string]> = [];
  #step = 0;

  /** Replaces every occurrence of `value` by `placeholder` (ids and codes the run made). */
  mask(value: string | number, placeholder: string): void {
    this.#masks.push([String(value), placeholder]);
  }

  /** A step of the script that is not an agent's call (a human, curl, the test's own setup). */
  note(text: string): void {
    this.#entries.push(`### ${++this.#step}. ${text}`);
  }

  /** `agent` calls `tool`; the call and its result go into the transcript. */
  async call(agent: Agent, tool: string, args: Record<string, unknown> = {}): Promise<Result> {
    const result = (await agent.client.callTool({ name: tool, arguments: args })) as Result;
    this.#entries.push(
      [
        `### ${++this.#step}. ${agent.name} (${agent.via}) ${tool} ${shortArgs(args)}`,
        result.isError === true ? '← error' : '←',
        shorten(result.content.map(render).join('\n')),
      ].join('\n'),
    );
    return result;
  }

  /** Something an agent received without asking (a notification). */
  received(agent: Agent, what: string): void {
    this.#entries.push(`### ${++this.#step}. ${agent.name} (${agent.via}) received ${what}`);
  }

  /** The whole transcript, normalised. */
  toString(): string {
    const text = `${this.#entries.join('\n\n')}\n`;
    return text
      .split('\n')
      .map((line) => cutLine(this.#normalise(line)))
      .join('\n');
  }

  #normalise(line: string): string {
    let text = line;
    for (const [value, placeholder] of this.#masks) text = text.replaceAll(value, placeholder);
    return text
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:<port>')
      .replace(/\/signed\/[\w.-]+/g, '/signed/<token>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>')
      .replace(/\b[0-9a-f]{64}\b/g, '<sha256>')
      .replace(/#[0-9a-f]{8}\b/g, '#<connection>')
      .replace(/\bsk_[A-Za-z0-9_-]+/g, '<key>');
  }
}

/** The text a result shows the model, for assertions. */
export function textOf(result: Result): string {
  return result.content.map(render).join('\n');
}
