/** The route table, part two: the service routes, workspaces, access control and the audit log. */
import { z } from 'zod';
import { PAGE_PARAMS, SESSION_HEADER } from './operations-files.js';
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

export const WORKSPACE_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'POST',
    path: '/v1/workspaces',
    tag: 'workspaces',
    summary: 'Create a workspace (you become its owner)',
    params: [SESSION_HEADER],
    body: { json: 'CreateWorkspaceBody' },
    responses: {
      201: {
        description: 'created',
        content: [{ json: 'Workspace' }],
        headers: ['Location', 'ETag'],
      },
    },
    errors: [400, 403, 409],
  },
  {
    method: 'GET',
    path: '/v1/workspaces',
    tag: 'workspaces',
    summary: 'List the workspaces you can see',
    params: PAGE_PARAMS,
    responses: { 200: { description: 'a page', content: [{ json: 'WorkspacePage' }] } },
    errors: [400],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws',
    tag: 'workspaces',
    summary: 'Workspace info: counts, size, head seq',
    responses: {
      200: {
        description: 'the workspace',
        content: [{ json: 'WorkspaceInfo' }],
        headers: ['ETag'],
      },
    },
    errors: [404],
  },
  {
    method: 'DELETE',
    path: '/v1/workspaces/:ws',
    tag: 'workspaces',
    summary: 'Delete a workspace (owners)',
    params: [SESSION_HEADER],
    responses: { 204: { description: 'deleted' } },
    errors: [403, 404],
  },
];

export const ACCESS_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'GET',
    path: '/v1/whoami',
    tag: 'access',
    summary: 'The principal and narrowing of your key',
    responses: { 200: { description: 'you', content: [{ json: 'WhoAmI' }] } },
  },
  {
    method: 'POST',
    path: '/v1/principals',
    tag: 'access',
    summary: 'Create a user or agent (admins)',
    body: { json: 'CreatePrincipalBody' },
    responses: { 201: { description: 'created', content: [{ json: 'Principal' }] } },
    errors: [400, 403, 409],
  },
  {
    method: 'GET',
    path: '/v1/principals',
    tag: 'access',
    summary: 'List principals (admins)',
    params: PAGE_PARAMS,
    responses: { 200: { description: 'a page', content: [{ json: 'PrincipalPage' }] } },
    errors: [400, 403],
  },
  {
    method: 'POST',
    path: '/v1/keys',
    tag: 'access',
    summary: 'Create an API key (the secret is shown once)',
    body: { json: 'CreateKeyBody', optional: true },
    responses: {
      201: { description: 'the key and its secret', content: [{ json: 'CreatedKey' }] },
    },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/keys',
    tag: 'access',
    summary: 'List your keys (?all=true: everyone’s, admins)',
    params: [
      { name: 'all', in: 'query', schema: z.boolean(), description: 'all principals’ keys' },
    ],
    responses: { 200: { description: 'keys (never secrets)', content: [{ json: 'KeyInfoPage' }] } },
    errors: [400, 403],
  },
  {
    method: 'DELETE',
    path: '/v1/keys/:id',
    tag: 'access',
    summary: 'Revoke a key',
    responses: { 200: { description: 'the revoked key', content: [{ json: 'KeyInfo' }] } },
    errors: [403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/members',
    tag: 'access',
    summary: 'List members',
    responses: { 200: { description: 'members', content: [{ json: 'MemberPage' }] } },
    errors: [403, 404],
  },
  {
    method: 'PUT',
    path: '/v1/workspaces/:ws/members/:principal',
    tag: 'access',
    summary: 'Add a member or change their role (owners)',
    params: [SESSION_HEADER],
    body: { json: 'SetMemberBody' },
    responses: { 200: { description: 'the membership', content: [{ json: 'Member' }] } },
    errors: [400, 403, 404, 409],
  },
  {
    method: 'DELETE',
    path: '/v1/workspaces/:ws/members/:principal',
    tag: 'access',
    summary: 'Remove a member (owners)',
    params: [SESSION_HEADER],
    responses: { 204: { description: 'removed' } },
    errors: [403, 404, 409],
  },
  {
    method: 'POST',
    path: '/v1/workspaces/:ws/transfers',
    tag: 'access',
    summary: 'Offer the workspace’s ownership (the claim code is shown once)',
    params: [SESSION_HEADER],
    body: { json: 'OfferTransferBody', optional: true },
    responses: { 201: { description: 'the offer', content: [{ json: 'TransferOffer' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/workspaces/:ws/transfers',
    tag: 'access',
    summary: 'List ownership offers',
    responses: { 200: { description: 'offers', content: [{ json: 'TransferPage' }] } },
    errors: [403, 404],
  },
  {
    method: 'DELETE',
    path: '/v1/workspaces/:ws/transfers/:id',
    tag: 'access',
    summary: 'Cancel an offer',
    params: [SESSION_HEADER],
    responses: { 200: { description: 'the cancelled offer', content: [{ json: 'Transfer' }] } },
    errors: [403, 404, 409],
  },
  {
    method: 'POST',
    path: '/v1/transfers/accept',
    tag: 'access',
    summary: 'Accept an ownership offer with its claim code',
    params: [SESSION_HEADER],
    body: { json: 'AcceptTransferBody' },
    responses: { 200: { description: 'the accepted offer', content: [{ json: 'Transfer' }] } },
    errors: [400, 403, 404, 409],
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
    summary: 'Audit entries of a workspace (owners)',
    params: AUDIT_PARAMS,
    responses: { 200: { description: 'oldest first', content: [{ json: 'AuditPage' }] } },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/v1/audit',
    tag: 'audit',
    summary: 'All audit entries (admins)',
    params: AUDIT_PARAMS,
    responses: { 200: { description: 'oldest first', content: [{ json: 'AuditPage' }] } },
    errors: [400, 403],
  },
  {
    method: 'GET',
    path: '/v1/audit/verify',
    tag: 'audit',
    summary: 'Recompute the audit hash chain (admins)',
    responses: { 200: { description: 'the verdict', content: [{ json: 'AuditVerification' }] } },
    errors: [403],
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
  {
    method: 'POST',
    path: '/v1/fsck',
    tag: 'audit',
    summary: 'Check blobs and references of the data directory (admins)',
    responses: { 200: { description: 'the report', content: [{ json: 'FsckReport' }] } },
    errors: [403],
  },
];
