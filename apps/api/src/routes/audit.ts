/**
 * The audit log — entries of one workspace (owners) or of all (admins), chain verification, the
 * JSONL export — and fsck, the other admin check of the data directory.
 */
import { AuditQuerySchema } from '@satchel/core/schemas';
import { type Context, Hono } from 'hono';
import type { ApiEnv } from '../api-env.js';
import type { RouteConfig } from '../app.js';
import { queryBool, queryInt, validate } from '../input.js';

/**
 * `?after=IDX&limit=`: entries after index IDX, oldest first. `nextCursor` is the last index
 * returned, so it is passed back as `after` (or as `cursor`, like every other list). On
 * `/v1/audit`, `?server=true` keeps only the server-level log (entries with no workspace); with a
 * workspace it is INVALID_INPUT.
 */
function auditQuery(c: Context<ApiEnv>, workspace: string | undefined) {
  const after = queryInt(c, 'after') ?? queryInt(c, 'cursor');
  const server = queryBool(c, 'server');
  return validate(
    AuditQuerySchema,
    {
      ...(workspace === undefined ? {} : { workspace }),
      ...(server === undefined ? {} : { server }),
      ...(after === undefined ? {} : { cursor: String(after) }),
      limit: queryInt(c, 'limit'),
    },
    'query',
  );
}

/**
 * The export's JSON lines as a streamed body. The first line is awaited before the response
 * starts, so a refusal (not an admin) is an ordinary problem response; the rest is pulled as
 * the client reads, and a client that goes away stops the export.
 */
async function exportResponse(c: Context<ApiEnv>, lines: AsyncIterable<string>): Promise<Response> {
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  const encoder = new TextEncoder();
  let pending: IteratorResult<string> | null = first;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = pending ?? (await iterator.next());
        pending = null;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(body, 200, {
    'Content-Type': 'application/x-ndjson; charset=utf-8',
    'Cache-Control': 'no-store',
  });
}

/**
 * Routes /v1/workspaces/:ws/audit, /v1/audit (one operation on two routes, with `after` as its
 * cursor) and /v1/audit/export (a stream of JSON lines).
 */
export function auditRoutes(_config: RouteConfig): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/workspaces/:ws/audit', async (c) =>
    c.json(await c.get('satchel').listAudit(auditQuery(c, c.req.param('ws')))),
  );
  app.get('/audit', async (c) =>
    c.json(await c.get('satchel').listAudit(auditQuery(c, undefined))),
  );
  app.get('/audit/export', async (c) => exportResponse(c, c.get('satchel').exportAudit()));
  return app;
}
