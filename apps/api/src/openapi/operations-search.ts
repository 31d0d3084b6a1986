/** The route table, part four: workspace settings, grep, search, ask and the search index. */
import { GrepOptionsSchema } from '@satchel/core/schemas';
import { z } from 'zod';
import { SESSION_HEADER } from './operations-files.js';
import type { OperationSpec, ParamSpec } from './spec.js';

const grepParam = (name: keyof typeof GrepOptionsSchema.shape, description: string): ParamSpec => ({
  name,
  in: 'query',
  schema: GrepOptionsSchema.shape[name],
  description,
});

export const SEARCH_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'PATCH',
    path: '/v1/workspaces/:ws',
    tag: 'workspaces',
    summary: 'Change workspace settings (owners), e.g. search indexing',
    body: { json: 'UpdateWorkspaceBody' },
    responses: {
      200: {
        description: 'the workspace',
        content: [{ json: 'WorkspaceInfo' }],
        headers: ['ETag'],
      },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/grep',
    tag: 'search',
    summary: 'Search file contents by text or regular expression, with line numbers',
    params: [
      {
        name: 'pattern',
        in: 'query',
        schema: z.string(),
        description: 'what to find',
        required: true,
      },
      grepParam('path', 'only under this path'),
      grepParam('glob', 'only files matching'),
      grepParam('regex', 'pattern is a regular expression (RE2)'),
      grepParam('caseSensitive', 'match case'),
      grepParam('limit', 'most hits'),
      grepParam('timeoutMs', 'stop after'),
      grepParam('maxFiles', 'most files to read'),
      grepParam('maxBytes', 'most bytes to read'),
    ],
    responses: { 200: { description: 'hits', content: [{ json: 'GrepResult' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/search',
    tag: 'search',
    summary: 'Ranked passages with citations',
    params: [
      { name: 'q', in: 'query', schema: z.string(), description: 'the query', required: true },
      { name: 'path', in: 'query', schema: z.string(), description: 'only under this path' },
      { name: 'limit', in: 'query', schema: z.number().int(), description: 'most passages' },
    ],
    responses: { 200: { description: 'passages', content: [{ json: 'SearchResult' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/ask',
    tag: 'search',
    summary: 'Answer a question from the workspace, citing passages',
    params: [SESSION_HEADER],
    body: { json: 'AskBody' },
    responses: { 200: { description: 'the answer', content: [{ json: 'AskResult' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/search/status',
    tag: 'search',
    summary: 'State of the workspace’s search index',
    responses: { 200: { description: 'status', content: [{ json: 'SearchStatus' }] } },
    errors: [403, 404],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/search/reindex',
    tag: 'search',
    summary: 'Rebuild the search index (owners)',
    params: [SESSION_HEADER],
    responses: { 200: { description: 'status', content: [{ json: 'SearchStatus' }] } },
    errors: [403, 404],
  },
];
