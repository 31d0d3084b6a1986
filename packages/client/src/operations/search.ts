/** Operations of search: grep, ranked passages, ask, and the index's status and rebuild. */
import { z } from 'zod';
import {
  AskOptionsSchema,
  AskResultSchema,
  CallOptionsSchema,
  GrepOptionsSchema,
  GrepResultSchema,
  SearchOptionsSchema,
  SearchResultSchema,
  SearchStatusSchema,
} from '../schemas/index.js';
import { operation, WORKSPACE_ARG } from './operation.js';

export const grep = operation({
  name: 'grep',
  summary: 'Content search: a literal or an RE2 expression, line by line, within budgets',
  tag: 'search',
  args: [WORKSPACE_ARG, ['pattern', z.string()]],
  options: GrepOptionsSchema,
  result: GrepResultSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, , options]) => options?.path ?? null,
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/grep',
    query: {
      pattern: 'string',
      path: 'string',
      glob: 'string',
      regex: 'boolean',
      caseSensitive: 'boolean',
      limit: 'integer',
      timeoutMs: 'integer',
      maxFiles: 'integer',
      maxBytes: 'integer',
      at: 'string',
    },
  },
});

export const search = operation({
  name: 'search',
  summary: 'BM25-ranked passages (hybrid with vectors when configured), each with a citation',
  tag: 'search',
  args: [WORKSPACE_ARG, ['q', z.string()]],
  options: SearchOptionsSchema,
  result: SearchResultSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, , options]) => options?.path ?? null,
  mutates: false,
  http: {
    method: 'GET',
    path: '/workspaces/:ws/search',
    query: { q: 'string', path: 'string', limit: 'integer', at: 'string' },
  },
});

export const ask = operation({
  name: 'ask',
  summary:
    'Answer a question from retrieved passages, with citations (passages only without an LLM)',
  tag: 'search',
  args: [WORKSPACE_ARG, ['question', z.string()]],
  options: AskOptionsSchema,
  result: AskResultSchema,
  access: { workspace: 'file.read' },
  auditPath: ([, , options]) => options?.path ?? null,
  mutates: false,
  http: { method: 'POST', path: '/workspaces/:ws/ask' },
});

export const searchStatus = operation({
  name: 'searchStatus',
  summary: 'The search index of a workspace: enabled, indexed seq, lag, passages, vectors',
  tag: 'search',
  args: [WORKSPACE_ARG],
  result: SearchStatusSchema,
  access: { workspace: 'file.read' },
  mutates: false,
  http: { method: 'GET', path: '/workspaces/:ws/search/status' },
});

export const reindex = operation({
  name: 'reindex',
  summary: "Rebuild the workspace's search index from its current files (owners)",
  tag: 'search',
  args: [WORKSPACE_ARG],
  options: CallOptionsSchema,
  result: SearchStatusSchema,
  access: { workspace: 'workspace.manage' },
  mutates: true,
  http: { method: 'POST', path: '/workspaces/:ws/search/reindex' },
});
