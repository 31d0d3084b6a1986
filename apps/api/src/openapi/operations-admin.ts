/** The route table, part two: the service routes, workspaces, access control and the audit log. */
import { z } from 'zod';
import { PAGE_PARAMS } from './operations-files.js';
import type { OperationSpec } from './spec.js';

export const SERVICE_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'GET',
    path: '/healthz',
    tag: 'service',
    summary: 'Liveness',
    auth: 'public',
    responses: { 200: { description: 'the server answers', content: [{ json: 'Health' }] } },
  },
  {
    method: 'GET',
    path: '/readyz',
    tag: 'service',
    summary: 'Readiness: the database answers with a current schema and the content store answers',
    auth: 'public',
    responses: {
      200: { description: 'ready to serve', content: [{ json: 'Readiness' }] },
      503: {
        description: 'not ready (take it out of the load balancer); Retry-After',
        content: [{ json: 'Readiness' }],
      },
    },
  },
  {
    method: 'GET',
    path: '/openapi.json',
    tag: 'service',
    summary: 'This document (OpenAPI 3.1)',
    auth: 'public',
    responses: {
      200: {
        description: 'the document',
        content: [{ media: 'application/json', format: 'text' }],
      },
    },
  },
  {
    method: 'GET',
    path: '/docs',
    tag: 'service',
    summary: 'API reference page (works offline)',
    auth: 'public',
    responses: { 200: { description: 'HTML', content: [{ media: 'text/html', format: 'text' }] } },
  },
  {
    method: 'GET',
    path: '/docs/assets/:file',
    tag: 'service',
    summary: 'Scripts and styles of the reference page',
    auth: 'public',
    responses: {
      200: {
        description: 'the asset',
        content: [{ media: 'application/octet-stream', format: 'binary' }],
      },
    },
    errors: [404],
  },
  {
    method: 'GET',
    path: '/metrics',
    tag: 'service',
    summary: 'Prometheus metrics (admin keys)',
    auth: 'admin',
    responses: {
      200: {
        description: 'text exposition format',
        content: [{ media: 'text/plain; version=0.0.4', format: 'text' }],
      },
    },
    errors: [403],
  },
];

const MCP_RESPONSES = {
  200: {
    description: 'JSON-RPC response(s), as JSON or an SSE stream',
    content: [
      { media: 'application/json', format: 'text' },
      { media: 'text/event-stream', format: 'text' },
    ],
  },
} as const;

/** `ALL /mcp` (mounted when the app is given an MCP handler): the methods MCP clients use. */
export const MCP_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'POST',
    path: '/mcp',
    tag: 'mcp',
    summary: 'MCP Streamable HTTP: send JSON-RPC messages',
    body: { raw: 'application/json' },
    responses: MCP_RESPONSES,
    errors: [400, 403, 404, 405],
  },
  {
    method: 'GET',
    path: '/mcp',
    tag: 'mcp',
    summary: 'MCP Streamable HTTP: open the server-to-client event stream',
    responses: MCP_RESPONSES,
    errors: [400, 403, 404, 405],
  },
  {
    method: 'DELETE',
    path: '/mcp',
    tag: 'mcp',
    summary: 'MCP Streamable HTTP: end a session',
    responses: { 200: { description: 'ended' } },
    errors: [400, 403, 404, 405],
  },
];

const AUDIT_PARAMS = [
  { name: 'after', in: 'query', schema: z.number().int(), description: 'entries after index' },
  ...PAGE_PARAMS,
] as const;

export const AUDIT_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/audit',
    tag: 'audit',
    summary: 'Audit entries of a workspace, by its id as it exists now (owners)',
    params: AUDIT_PARAMS,
    responses: { 200: { description: 'oldest first', content: [{ json: 'AuditPage' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/audit',
    tag: 'audit',
    summary: 'All audit entries, or with ?server=true the server-level log (admins)',
    params: [
      ...AUDIT_PARAMS,
      {
        name: 'server',
        in: 'query',
        schema: z.boolean(),
        description:
          'only entries with no workspace id: refused keys, rate-limited calls, calls against names with no workspace',
      },
    ],
    responses: { 200: { description: 'oldest first', content: [{ json: 'AuditPage' }] } },
    errors: [400, 403],
  },
  {
    method: 'GET',
    path: '/v1/audit/export',
    tag: 'audit',
    summary: 'The whole audit log as JSON lines (admins)',
    responses: {
      200: { description: 'JSONL', content: [{ media: 'application/x-ndjson', format: 'text' }] },
    },
    errors: [403],
  },
];
