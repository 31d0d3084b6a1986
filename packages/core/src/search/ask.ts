/**
 * `ask`: retrieves the best passages for a question and, with a chat provider configured, has
 * the model answer from those passages alone, citing them as [n]. Citations of anything but a
 * retrieved passage are dropped from the answer. Without a provider the passages come back
 * with a note, and nothing leaves the machine.
 */

import { parseOptions } from '@satchel/client/options.js';
import type {
  AskOptions,
  AskResult,
  NumberedCitation,
  SearchHit,
} from '@satchel/client/schemas/index.js';
import { AskOptionsSchema } from '@satchel/client/schemas/index.js';
import type { EngineContext } from '../kernel/context.js';
import type { SearchIndex } from './indexer.js';
import type { ChatMessage } from './llm.js';
import { searchPassages } from './search.js';

export const NO_MODEL_NOTE = 'no language model is configured';

const SYSTEM_PROMPT =
  'You answer questions about the files of a workspace using ONLY the numbered passages ' +
  'given. Cite every statement with the number of its passage in square brackets, like [1] ' +
  'or [2][3]. Never cite a number that is not in the list. If the passages do not contain the ' +
  'answer, say so briefly. Be concise.';

/** The prompt: numbered passages with their citations, then the question. */
export function askMessages(question: string, passages: readonly SearchHit[]): ChatMessage[] {
  const numbered = passages
    .map((p, i) => {
      const c = p.citation;
      return `[${i + 1}] ${c.path} (version ${c.seq}, lines ${c.lineStart}-${c.lineEnd})\n${p.text.trimEnd()}`;
    })
    .join('\n\n');
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Passages:\n\n${numbered}\n\nQuestion: ${question}` },
  ];
}

/**
 * Keeps the [n] markers of `answer` that name one of `count` passages and removes the others
 * (a marker like [2, 9] keeps 2). Returns the cleaned answer, the cited numbers in order of
 * first use, and the dropped ones.
 */
export function checkCitations(
  answer: string,
  count: number,
): { answer: string; cited: number[]; dropped: number[] } {
  const cited: number[] = [];
  const dropped: number[] = [];
  const cleaned = answer.replace(/ ?\[(\d+(?:\s*,\s*\d+)*)\]/g, (marker, list: string) => {
    const numbers = list.split(',').map((n) => Number(n.trim()));
    const kept = numbers.filter((n) => Number.isInteger(n) && n >= 1 && n <= count);
    for (const n of numbers) {
      if (kept.includes(n)) {
        if (!cited.includes(n)) cited.push(n);
      } else if (!dropped.includes(n)) {
        dropped.push(n);
      }
    }
    if (kept.length === 0) return '';
    const space = marker.startsWith(' ') ? ' ' : '';
    return `${space}[${kept.join(', ')}]`;
  });
  return { answer: cleaned, cited, dropped };
}

export async function ask(
  ctx: EngineContext,
  index: SearchIndex,
  workspace: string,
  question: string,
  rawOptions?: AskOptions,
): Promise<AskResult> {
  const options = parseOptions(AskOptionsSchema, rawOptions);
  const found = await searchPassages(
    ctx,
    index,
    workspace,
    question,
    {
      ...(options.path === undefined ? {} : { path: options.path }),
      limit: options.limit ?? 6,
    },
    'question',
  );
  const passages = found.items;
  const base = { question, citations: [], dropped: [], passages };
  const llm = index.llm;
  if (!llm) return { ...base, answer: null, model: null, note: NO_MODEL_NOTE };
  if (passages.length === 0) {
    return { ...base, answer: null, model: llm.model, note: 'no passage matches the question' };
  }
  let reply: string;
  try {
    reply = await llm.complete(askMessages(question, passages));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ...base,
      answer: null,
      model: llm.model,
      note: `the language model failed: ${reason}`,
    };
  }
  const { answer, cited, dropped } = checkCitations(reply, passages.length);
  const citations: NumberedCitation[] = [];
  for (const n of cited) {
    const passage = passages[n - 1];
    if (passage) citations.push({ n, ...passage.citation });
  }
  return { ...base, answer, model: llm.model, citations, dropped, note: null };
}
